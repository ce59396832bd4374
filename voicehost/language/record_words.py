"""The protocol's record words (roles, teams, why a game ended) as a person reads them, in the
language in use: the records tables, the appliance's and ``voicehost run``'s protocol line. The
protocol, the journal, the JSON and the CSV keep the words themselves (``red``,
``no_black_left``); only what is printed for a person says them."""

from __future__ import annotations

from collections.abc import Callable

from voicehost.i18n import N_, _

RECORD_WORDS = {
    "citizen": N_("citizen"), "sheriff": N_("sheriff"), "commissar": N_("commissar"), "doctor": N_("doctor"),
    "putana": N_("putana"), "don": N_("don"), "mafia": N_("mafia"), "yakuza": N_("yakuza"), "maniac": N_("maniac"),
    "red": N_("red"), "black": N_("black"), "nobody": N_("nobody"),
    "no_black_left": N_("no black players left"), "black_parity": N_("as many black as red"),
    "only_mafia_left": N_("only the mafia left"), "only_yakuza_left": N_("only the yakuza left"),
    "maniac_last_two": N_("the maniac in the last two"), "mutual_destruction": N_("mutual destruction"),
    "three_misses": N_("the mafia missed three nights"), "split_deadlock": N_("repeat ties, no one voted out"),
    "quiet_draw": N_("a draw: nobody left the table"), "annulled": N_("annulled"), "stopped": N_("stopped"),
}


def record_word(value: object, translate: Callable[[str], str] = _) -> str:
    """A record word of the protocol in the language in use (``translate``: another catalog's
    gettext, for a line that is spoken); anything else (None: ``-``) as it is."""
    if value is None:
        return "-"
    text = str(value)
    return translate(RECORD_WORDS[text]) if text in RECORD_WORDS else text


def result_words(winner: object, reason: object) -> str:
    """Who won and why, as the records tables show it: «красные (чёрных не осталось)»."""
    return f"{record_word(winner)} ({record_word(reason)})"
