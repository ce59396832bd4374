"""``voicehost demo``: a table script played out loud — the judge's log in the terminal, the
host's lines through the real voice, night music at night — then the protocol."""

from __future__ import annotations

import time

from .host_lines import count_lines, event_lines, request_lines, spoken
from .narrate import narrate
from .phrasebook import Phrasebook
from .rules import Game
from .rules.events import MorningCame, NightFell
from .rules.requests import AwaitShots, Request
from .voice import Voice


class Show:
    """Follows a simulated game: each new event is printed and spoken, each night step called."""

    def __init__(self, voice: Voice | None, book: Phrasebook, names: dict[int, str], pace: float) -> None:
        self.voice = voice
        self.book = book
        self.names = names
        self.pace = pace
        self.shown = 0

    def request(self, game: Game, request: Request) -> None:
        self.flush(game)
        said = request_lines(request, game)
        if isinstance(request, AwaitShots):
            said += count_lines(request.called, game)
        self._speak(game, said)

    def flush(self, game: Game) -> None:
        for event in game.events[self.shown:]:
            for line in narrate([event], self.book, self.names):
                print(line, flush=True)
            if isinstance(event, MorningCame) and self.voice is not None:
                self.voice.night(False)
            self._speak(game, event_lines(event, game))
            if isinstance(event, NightFell) and self.voice is not None:
                self.voice.night(True)
            if self.pace:
                time.sleep(self.pace)
        self.shown = len(game.events)

    def _speak(self, game: Game, said: list[tuple[str, dict[str, object]]]) -> None:
        if self.voice is None:
            return
        for text in spoken(said, self.book, game.ruleset.name):
            self.voice.say(text)
