"""The cards: shuffled by the host (seeded, so a journal replays it), or typed as
``3=don,5=mafia,…`` by a human host — on the command line or at the console."""

from __future__ import annotations

import random

from voicehost.i18n import _, in_russian
from voicehost.language.record_words import RECORD_WORDS
from voicehost.rules import Game, InputError, Options, Role, Ruleset
from voicehost.rules.game import validate_deal
from voicehost.rules.inputs import Deal


def shuffled_deal(ruleset: Ruleset, options: Options, seats: int, rng: random.Random) -> tuple[Role, ...]:
    """Shuffle the ruleset's deck and deal ``seats`` cards (a spare card stays face down)."""
    from voicehost.rules import GAMES
    cast, spare = GAMES[ruleset.name].deck(ruleset, options, seats)
    cards = [role for role, count in cast.items() for _ in range(count)]
    cards += [Role.CITIZEN] * (seats + spare - len(cards))
    rng.shuffle(cards)
    return tuple(cards[:seats])


def seeded_deal(game: Game, seed: int) -> Deal:
    return Deal(shuffled_deal(game.ruleset, game.options, game.seats, random.Random(seed)))


def typed_pairs(text: str | None, place: str) -> list[tuple[str, str]]:
    """``3=don,5=mafia`` → [("3", "don"), ("5", "mafia")], as typed (a seat twice stays twice)."""
    pairs = []
    for item in (text or "").split(","):
        if not item.strip():
            continue
        seat, equals, value = item.partition("=")
        if not equals or not seat.strip() or not value.strip():
            raise InputError(place, _("{item!r} is not SEAT=VALUE").format(item=item))
        pairs.append((seat.strip(), value.strip()))
    return pairs


def parse_pairs(text: str | None, place: str) -> dict[int, str]:
    """``3=don,5=mafia`` → {3: "don", 5: "mafia"}; a seat is ASCII digits, and listed once."""
    pairs: dict[int, str] = {}
    for seat, value in typed_pairs(text, place):
        if not seat.isascii() or not seat.isdigit() or len(seat) > 3:
            raise InputError(place, _("{seat!r} is not a seat number").format(seat=seat))
        if int(seat) in pairs:
            raise InputError(place, _("seat {seat} is listed twice").format(seat=int(seat)))
        pairs[int(seat)] = value
    return pairs


def card(word: str) -> Role | None:
    """A typed card: its role's code (``don``) or its record word, in Russian whatever the language
    in use, or in the language in use (``дон``, ``Мафия``, ``мирный житель``; ё as е), whatever the case."""
    wanted = _folded(word)
    try:
        return Role(wanted)
    except ValueError:
        pass
    for role in Role:
        known = RECORD_WORDS.get(role.value)
        if known and wanted in {_folded(in_russian(known)), _folded(_(known))}:
            return role
    return None


_YO, _YE = chr(0x451), chr(0x435)   # ё is written as е as often as not


def _folded(word: str) -> str:
    return " ".join(word.lower().replace(_YO, _YE).split())


def typed_deal(text: str, game: Game, place: str) -> Deal:
    """The cards as typed; unlisted seats are citizens, and they must be the table's cast."""
    roles = [Role.CITIZEN] * game.seats
    for seat, role in parse_pairs(text, place).items():
        if not 1 <= seat <= game.seats:
            raise InputError(f"{place} {seat}", _("there is no seat {seat} at a {seats}-seat table").format(
                                                    seat=seat, seats=game.seats))
        found = card(role)
        if found is None:
            raise InputError(f"{place} {seat}", _("unknown role {role!r}").format(role=role)) from None
        roles[seat - 1] = found
    validate_deal(tuple(roles), game.cast, game.seats, place, game.spare_cards)
    return Deal(tuple(roles))
