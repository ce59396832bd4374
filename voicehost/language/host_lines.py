"""What the host says, by key: the lines for each event and for each night step.

Only public events speak: roles, checks, saves and the maniac's side never become a
spoken line (they go to the checker's own LED, or nowhere). Each function returns
``(key, values)`` pairs; :class:`voicehost.language.phrasebook.Phrasebook` turns them into Russian
with the ruleset's own wording. :data:`HOST_KEYS` lists every key the code can ask for,
so a test can check the phrasebook has them all.

Where rulesets differ, the game class says which line (``type(game).lines``, a
:class:`~voicehost.rules.ruleset.HostLines`, and :meth:`~voicehost.rules.Game.last_word_line`):
nothing here asks which ruleset is playing. A line that may call a seat by name (canonical) is
given both the seat and its roster name, and its wording uses the one it needs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voicehost.rules import Game
from voicehost.rules.events import (
    Acquitted,
    AllStay,
    BestMoveNamed,
    BloodNamed,
    DayBegan,
    Eliminated,
    Event,
    FoulGiven,
    GameOver,
    HandRaised,
    LiftAsked,
    MayorElected,
    MorningCame,
    NightFell,
    NominationAccepted,
    NominationRefused,
    NominationsTallied,
    NominationWithdrawn,
    NoVote,
    RoleRevealed,
    SpeechBegan,
    TieDeclared,
    VoteIgnored,
    VotesCounted,
    VotingBegan,
    WithdrawalRefused,
)
from voicehost.rules.requests import AwaitAction, AwaitDawn, AwaitShots, Request, Round, Turn
from voicehost.rules.roles import Role

Said = list[tuple[str, dict[str, Any]]]


def _one(key: str, **values: Any) -> Said:
    return [(key, values)]


def _night(e: NightFell, game: Game) -> Said:
    return _one(game.lines.first_night if e.night == 1 else "night_falls")


def _morning(e: MorningCame, game: Game) -> Said:
    if len(e.killed) > 1:
        return _one("morning_killed_many", list=e.killed)
    if e.killed:
        return _one("morning_killed", **_seat(game, e.killed[0]))
    return _one(game.lines.first_morning if e.day == 1 else game.lines.quiet_morning)


# Every turn but the last word (the ruleset picks its line) → the line that gives the floor.
TURN_KEYS: dict[Turn, str] = {
    "speech": "speech", "short": "speech_short", "silent": "speech_silent", "tie": "tie_speech",
    "intro": "intro_speech", "extra": "extra_word", "defence": "defence", "blood_name": "blood_name",
    "nominate": "nominate_question", "free": "discussion"}


def _speech(e: SpeechBegan, game: Game) -> Said:
    if e.turn == "last_word":
        return _one(game.last_word_line(e.seat, e.seconds), seat=e.seat)
    if e.turn == "free":
        return _one("discussion", seconds=e.seconds)
    if e.turn == "nominate":
        return _one("nominate_question", name=_names(game)(e.seat))
    return _one(TURN_KEYS[e.turn], seat=e.seat)


def _voting(e: VotingBegan, game: Game) -> Said:
    if e.round == "main":
        # sport names them twice, in the order accepted; a single candidate (a later day) is «выставлен»
        named = _one("candidates_one", seat=e.candidates[0]) if len(e.candidates) == 1 \
            else _one("candidates", list=e.candidates)
        return _one("voting_starts") + named * game.lines.candidates_named
    key = {"revote": game.lines.revote, "acquittal": "acquittal_question", "prevote": "prevote",
           "final": "final_vote", "mayor": "mayor_election"}[e.round]
    return _one(key, list=e.candidates, seat=e.candidates[0], names=[_names(game)(s) for s in e.candidates])


def question_key(round_name: Round) -> str:
    """The line that opens a candidate's vote window in a round."""
    return {"mayor": "mayor_question", "prevote": "prevote_question", "final": "final_question"}.get(
        round_name, "vote_question")


def _counted(e: VotesCounted, game: Game) -> Said:
    if not game.lines.counts_said:
        return []
    return [("vote_count" if n else "vote_count_none", {"seat": seat, "n": n}) for seat, n in e.counts]


def _stay(e: AllStay, game: Game) -> Said:
    key = {"four_players": "all_stay_four", "lift_failed": "all_stay", "three_way_tie": "three_way_tie",
           "repeat_tie": "repeat_tie", "split": "split", "no_execution": "no_execution"}[e.reason]
    return _one(key)


def _eliminated(e: Eliminated, game: Game) -> Said:
    if e.cause == "removed":
        return _one("removed", seat=e.seat)
    if e.cause == "killed":
        return []
    return _one(game.lines.voted_out, **_seat(game, e.seat))


def _revealed(e: RoleRevealed, game: Game) -> Said:
    if game.lines.card_by_team:
        return _one("executed_mafia" if e.role is Role.MAFIA else "executed_citizen")
    return _one("card_shown", seat=e.seat, role=e.role)


def _game_over(e: GameOver, game: Game) -> Said:
    return _one(f"victory_{e.winner}") + _one(f"reason_{e.reason}", n=e.count)


def _tallied(e: NominationsTallied, game: Game) -> Said:
    if len(e.ballot) == len(game.alive_seats()) and len(e.ballot) > 3:
        return _one("everyone_on_ballot")
    if len(e.ballot) == 1:
        return _one("ballot_one", **_seat(game, e.ballot[0]))
    return _one("ballot", names=[_names(game)(s) for s in e.ballot])


EVENT_LINES: dict[type[Event], Callable[[Any, Game], Said]] = {
    NightFell: _night,
    MorningCame: _morning,
    DayBegan: lambda e, g: _one("day_opens", seat=e.opener)
    if e.opener and (e.day > 1 or g.lines.opener_on_day_one) else [],
    SpeechBegan: _speech,
    NominationAccepted: lambda e, g: _one(g.lines.nomination, seat=e.target, name=_names(g)(e.by),
                                          target=_names(g)(e.target)),
    NominationRefused: lambda e, g: _one(f"refused_{e.reason}", seat=e.target),
    NominationWithdrawn: lambda e, g: _one("withdrawn", seat=e.target),
    WithdrawalRefused: lambda e, g: _one("withdraw_refused"),
    VotingBegan: _voting,
    NoVote: lambda e, g: _one({"no_candidates": "no_candidates", "single_on_day_one": "single_on_day_one",
                               "cancelled": "vote_cancelled", "restarted": "vote_restarted"}[e.reason]),
    VoteIgnored: lambda e, g: _one("second_vote", seat=e.voter),
    VotesCounted: _counted,
    TieDeclared: lambda e, g: _one("tie", list=e.seats),
    LiftAsked: lambda e, g: _one("all_leave_question"),
    AllStay: _stay,
    FoulGiven: lambda e, g: _one("foul_removed" if e.count >= g.fouls_to_remove else "foul", seat=e.seat, n=e.count),
    Eliminated: _eliminated,
    RoleRevealed: _revealed,
    MayorElected: lambda e, g: _one("mayor_elected", seat=e.seat),
    BloodNamed: lambda e, g: _one("blood_named", seat=e.target),
    Acquitted: lambda e, g: _one("acquitted", seat=e.seat),
    HandRaised: lambda e, g: _one("hand_raised", seat=e.seat),
    NominationsTallied: _tallied,
    GameOver: _game_over,
    BestMoveNamed: lambda e, g: _one("best_move_named", seat=e.by, list=e.seats),
}


def event_lines(event: Event, game: Game) -> Said:
    """The host's lines for one event (nothing for private ones)."""
    build = EVENT_LINES.get(type(event))
    return build(event, game) if build is not None else []


# ---- night steps: what the host says when a role wakes -------------------------------------

def request_lines(request: Request | None, game: Game) -> Said:
    """The lines that call a night step (before the host waits for taps)."""
    if isinstance(request, AwaitShots):
        return _one("yakuza_wakes" if request.team == "yakuza" else game.lines.shots)
    if isinstance(request, AwaitAction):
        return _action_lines(request, game)
    if isinstance(request, AwaitDawn):
        return _dawn_lines(request, game)
    return []


def _action_lines(request: AwaitAction, game: Game) -> Said:
    role = request.role
    if "join" in request.actions:
        return [(k, {}) for k in ("mafia_acquaint", "sheriff_meets", "doctor_meets", "maniac_meets", "maniac_side")]
    if role is Role.DON:
        return _one("don_searches")
    if role is Role.SHERIFF:
        return _one("sheriff_searches")
    if role is Role.MANIAC:
        return _one("maniac_hunts")
    if role is Role.DOCTOR and game.lines.doctor_hears_victims:
        return _one("doctor_saves" if request.targets else "doctor_no_victims")
    return _one(f"{role.value}_wakes")


def _dawn_lines(request: AwaitDawn, game: Game) -> Said:
    return [(k, {}) for k in game.lines.first_dawn] if request.night == 1 else []


# A wake-up with a time of its own: after its line the host waits the ruleset's timer (a
# ruleset without that timer waits nothing).
TIMED_WAKES = {"mafia_acquaint": "acquaintance_s", "mafia_wakes": "mafia_agree_s"}


def status_lines(nominated: tuple[int, ...]) -> Said:
    """The console's ``status``: who is nominated, in the number that agrees with how many."""
    if not nominated:
        return _one("status_nobody_nominated")
    if len(nominated) == 1:
        return _one("status_nominated_one", seat=nominated[0])
    return _one("status_nominated", list=nominated)


def count_lines(seats: tuple[int, ...], game: Game) -> Said:
    """The shooting count: numbers (or names, in canonical) called one by one."""
    return [(game.lines.count, _seat(game, s)) for s in seats]


def _names(game: Game) -> Callable[[int], str]:
    return lambda seat: game.names.get(seat, str(seat))


def _seat(game: Game, seat: int) -> dict[str, Any]:
    """A seat for a line that says its number or (a ruleset that calls players by name) its name."""
    return {"seat": seat, "name": _names(game)(seat)}


HOST_KEYS = frozenset({
    "table_ready", "game_resumed", "no_room", "journal_failed", "game_discarded",  # the appliance (service)
    "night_falls", "night_one", "morning", "morning_killed", "morning_killed_many", "morning_missed", "morning_quiet",
    "introduction", "last_word", "last_word_short", "testament", "day_opens", *TURN_KEYS.values(),
    "nomination_accepted", "nominated", "withdrawn", "withdraw_refused", "voting_starts", "candidates",
    "candidates_one", "ballot_one",
    "repeat_number", "repeat_answer", "vetoed", "go_on",
    "revote", "acquittal_question", "prevote", "final_vote", "mayor_election", "runoff", "vote_count",
    "vote_count_none",
    "no_candidates", "single_on_day_one", "vote_cancelled", "vote_restarted", "second_vote", "tie",
    "all_leave_question", "all_stay_four", "all_stay", "three_way_tie", "repeat_tie", "split", "no_execution",
    "foul", "foul_removed", "removed", "jailed", "sentence", "leaves", "card_shown", "executed_mafia",
    "executed_citizen", "mayor_elected", "blood_named", "acquitted", "hand_raised", "ballot", "everyone_on_ballot",
    "mafia_hunts", "mafia_wakes", "yakuza_wakes", "mafia_acquaint", "sheriff_meets", "doctor_meets", "maniac_meets",
    "maniac_side", "don_searches", "sheriff_searches", "maniac_hunts", "doctor_saves", "doctor_no_victims",
    "doctor_wakes", "putana_wakes", "commissar_wakes", "mafia_sleeps", "don_wakes", "don_sleeps", "sheriff_sleeps",
    "maniac_sleeps", "count", "name_call", "deal_open", "deal_close", "learn_role", "learn_close", "learn_failed",
    "thanks", "ten_seconds", "accepted", "fouls_status", "status_nominated", "status_nobody_nominated",
    "vote_corrected", "vote_removed", "seat_returns", "paused", "resumed", "status_time_left", "one_minute",
    "status_nominated_one", "best_move_named",
    *(f"refused_{r}" for r in ("seat_out", "not_a_seat", "already_nominated", "not_your_turn", "one_per_speech",
                               "self_nomination", "no_nominations_now")),
    *(f"victory_{w}" for w in ("red", "black", "maniac", "yakuza", "nobody")),
    *(f"reason_{r}" for r in ("no_black_left", "black_parity", "only_mafia_left", "only_yakuza_left", "three_misses",
                              "split_deadlock", "maniac_last_two", "mutual_destruction", "quiet_draw")),
})


def spoken(said: Said, book: Any, ruleset: str) -> list[str]:
    """The Russian text of each line; a role value is spoken by its name («мафия»)."""
    texts = []
    for key, values in said:
        values = {k: book.say(f"role_{v.value}", ruleset) if isinstance(v, Role) else v for k, v in values.items()}
        texts.append(book.say(key, ruleset, **values))
    return texts
