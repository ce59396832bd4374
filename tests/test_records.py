"""Every input and event survives a JSON round trip (as the journal will store them)."""

from __future__ import annotations

import json
import sys
from typing import Literal, TypeVar, get_args, get_origin

import pytest

from voicehost.rules.events import Event, event_from_dict
from voicehost.rules.inputs import Input, input_from_dict
from voicehost.rules.records import Record, family
from voicehost.rules.roles import Role

R = TypeVar("R", bound=Record)


def sample(cls: type[R]) -> R:
    import dataclasses
    values: dict[str, object] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]  # every record class is a dataclass (as in records.py)
        hint = str(f.type)
        closed = getattr(sys.modules[cls.__module__], hint, None)  # a Literal alias (Turn, Round, Winner …)
        if get_origin(closed) is Literal:
            values[f.name] = get_args(closed)[-1]
        elif hint == "int":
            values[f.name] = 3
        elif hint == "int | None":
            values[f.name] = 4
        elif hint == "str":
            values[f.name] = "main"
        elif hint == "bool":
            values[f.name] = True
        elif hint == "Role":
            values[f.name] = Role.SHERIFF
        elif hint.startswith("tuple[Role"):
            values[f.name] = (Role.DON, Role.CITIZEN)
        elif hint.startswith("tuple[tuple[int, tuple[int"):
            values[f.name] = ((3, (4, 5)), (5, ()))
        elif hint.startswith("tuple[tuple[int, int]"):
            values[f.name] = ((5, 6), (9, 4))
        elif hint.startswith("tuple[int"):
            values[f.name] = (1, 2)
        else:
            raise AssertionError(f"no sample for {cls.__name__}.{f.name}: {hint}")
    return cls(**values)


def kind_of(cls: type[Record]) -> str:
    return cls.kind


EVENT_CLASSES = sorted(family(Event).values(), key=kind_of)
INPUT_CLASSES = sorted(family(Input).values(), key=kind_of)


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=kind_of)
def test_every_event_round_trips_through_json(cls: type[Event]) -> None:
    event = sample(cls)
    assert event_from_dict(json.loads(json.dumps(event.to_dict()))) == event


@pytest.mark.parametrize("cls", INPUT_CLASSES, ids=kind_of)
def test_every_input_round_trips_through_json(cls: type[Input]) -> None:
    item = sample(cls)
    assert input_from_dict(json.loads(json.dumps(item.to_dict()))) == item


def test_the_families_hold_every_record_class_of_their_module() -> None:
    import inspect

    from voicehost.rules import events, inputs
    for module, base in ((events, Event), (inputs, Input)):
        defined = {cls for _, cls in inspect.getmembers(module, inspect.isclass)
                   if issubclass(cls, base) and cls is not base}
        assert defined == set(family(base).values())
