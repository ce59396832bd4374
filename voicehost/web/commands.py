"""The judge's commands from a browser: checked for form before they go anywhere near the game.

A command is the console's own words (``foul 3``, ``vote 8 5``, ``roles 3=don,…``), read by the
console's own reader (:func:`voicehost.host.read_command`): what can be known without the game —
the command exists, it has its numbers, each number is a seat at this table — is checked here,
and a bad one is refused with one Russian line; it never reaches the console queue, the journal
or the game. What only the game knows (seat 3 is already out; there was no vote to correct) the
director decides, and :func:`in_russian` words its reason.
"""

from __future__ import annotations

import re

from voicehost.host import Refused, read_command


class CommandError(ValueError):
    """A command refused before it reached the game; the message is one Russian line."""


def check_command(line: object, seats: int) -> str:
    """The command in its normal form (single spaces), or :class:`CommandError`."""
    if not isinstance(line, str) or not line.strip():
        raise CommandError("Нет команды: пришлите {\"command\": \"foul 3\"}.")
    try:
        name, numbers, rest = read_command(line.strip(), seats)
    except Refused as err:
        raise CommandError(in_russian(str(err))) from None
    return " ".join([name, *map(str, numbers)] + ([rest] if rest else []))


USAGE = r"(?:; )?usage: (.+)$"
# The console's and the engine's reasons (English, for the terminal and the log) in the judge's Russian.
REASONS: list[tuple[re.Pattern[str], str]] = [(re.compile(p), r) for p, r in [
    (r"^the game is over$", "Игра уже окончена."),
    (r"^the cards are not dealt yet$", "Карты ещё не розданы."),
    (r"^no cards are dealt yet$", "Карты ещё не розданы."),
    (r"^the cards are already dealt$", "Карты уже розданы."),
    (r"^seat (\d+) is not at the table$", r"Игрок \1 уже не за столом."),
    (r"^there is no seat (\d+) at this table \(seats 1–(\d+)\)" + USAGE, r"Места \1 нет: за этим столом места 1–\2."),
    (r"^there is no seat (\d+)$", r"Места \1 нет."),
    (r"^seat (\d+) did not vote in the last round$", r"Игрок \1 не голосовал в последнем голосовании."),
    (r"^seat (\d+) was not a candidate in the last round$", r"Игрок \1 не был кандидатом в последнем голосовании."),
    (r"^there was no vote to correct$", "Голосования ещё не было: исправлять нечего."),
    (r"^the deal cannot be undone.*$", "Раздачу нельзя отменить (исправьте карты командой roles 3=don,…)."),
    (r"^seat (\d+) has the floor, not seat (\d+)$", r"Сейчас говорит игрок \1, а не игрок \2."),
    (r"^seat (\d+) does not vote in this round$", r"Игрок \1 не голосует в этом голосовании."),
    (r"^seat (\d+) is not on the ballot$", r"Игрока \1 нет среди кандидатов."),
    (r"^only a player killed last night names a seat.*$", "Кровное имя называет только убитый ночью, в свою речь."),
    (r"^hands are raised during the discussion round.*$", "Руку поднимают только во время обсуждения."),
    (r"^the game is not paused$", "Игра не на паузе."),
    (r"^the game is already paused$", "Игра уже на паузе."),
    (r"^the host has said nothing yet$", "Ведущий ещё ничего не сказал."),
    (r"^the line is longer than (\d+) characters$", r"Команда длиннее \1 знаков."),
    (r"^the line has characters that are not text.*$", "В команде есть знаки, которые не текст: наберите её заново."),
    (r"^unknown command.*$", "Неизвестная команда. Команды: foul, remove, end, nominate, withdraw, blood, hand, "
                             "vote, roles, undo, repeat, status, pause, resume."),
    (r"^(\w+) takes nothing after it$", r"Команда \1 пишется без чисел."),
    (r"^usage: (.+)$", r"Команда пишется так: \1."),
    (r"^type the cards as: (.+)$", r"Карты пишутся так: \1."),
    (r"^not now: the cards are not dealt yet$", "Сейчас нельзя: карты ещё не розданы."),
    (r"^not now: the mafia is shooting$", "Сейчас нельзя: мафия стреляет."),
    (r"^not now: a night role is awake$", "Сейчас нельзя: ночью просыпается роль."),
    (r"^not now: the night is ending$", "Сейчас нельзя: ночь заканчивается."),
    (r"^not now: the morning is being announced$", "Сейчас нельзя: объявляется утро."),
    (r"^not now: night is falling$", "Сейчас нельзя: наступает ночь."),
    (r"^not now: a player has the floor$", "Сейчас нельзя: идёт речь игрока."),
    (r"^not now: the vote is on$", "Сейчас нельзя: идёт голосование."),
    (r"^not now: the lift vote is on$", "Сейчас нельзя: идёт голосование «все покидают?»."),
    (r"^not now: .*$", "Сейчас нельзя: игра ждёт другого."),
]]


def in_russian(reason: str) -> str:
    """A refusal as one Russian line (the English kept when there is no wording for it yet, so
    nothing is hidden from the judge)."""
    for pattern, russian in REASONS:
        if pattern.match(reason):
            return pattern.sub(russian, reason)
    return f"Отказано: {reason}."
