"""A receiver's schema, small enough to read beside its source: a field's type, whether it must
be there, its allowed values, and the fields of an object or the items of a list. The rating
sites' modules write theirs from the sites' own code (docs/records.md cites file and commit);
the exports are checked against them in the tests, and the test receiver of ``tournament
upload`` refuses what they refuse.

:func:`problems` lists every departure (an empty list: the value fits), each as
``place: what is wrong``, so a test can count them and a person can read them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

KINDS = ("int", "number", "str", "bool", "object", "list", "datetime", "any")


@dataclass(frozen=True)
class Spec:
    """One value's shape. ``kind`` is one of :data:`KINDS` or a tuple of them (the value may be
    any); ``datetime`` is ISO 8601 text. ``required``: an object's field must be present;
    ``nullable``: it may be JSON null. ``fields`` of an object, ``items`` of a list."""

    kind: str | tuple[str, ...]
    required: bool = False
    nullable: bool = False
    enum: tuple[Any, ...] = ()
    fields: Mapping[str, Spec] = field(default_factory=dict)
    items: Spec | None = None
    minimum: float | None = None
    maximum: float | None = None
    length: int | None = None   # a list's exact length


def problems(value: Any, spec: Spec, place: str = "$") -> list[str]:
    """Every way ``value`` departs from ``spec``."""
    if value is None:
        return [] if spec.nullable else [f"{place}: must not be null"]
    kinds = spec.kind if isinstance(spec.kind, tuple) else (spec.kind,)
    if not any(_is(value, kind) for kind in kinds):
        return [f"{place}: must be {' or '.join(kinds)}, not {type(value).__name__}"]
    found: list[str] = []
    if spec.enum and value not in spec.enum:
        found.append(f"{place}: {value!r} is not one of {', '.join(map(repr, spec.enum))}")
    if _number(value) and spec.minimum is not None and value < spec.minimum:
        found.append(f"{place}: {value} is below {spec.minimum:g}")
    if _number(value) and spec.maximum is not None and value > spec.maximum:
        found.append(f"{place}: {value} is above {spec.maximum:g}")
    if isinstance(value, Mapping) and spec.fields:
        found.extend(_object(value, spec.fields, place))
    if isinstance(value, list):
        if spec.length is not None and len(value) != spec.length:
            found.append(f"{place}: must hold {spec.length} items, holds {len(value)}")
        if spec.items is not None:
            for k, item in enumerate(value):
                found.extend(problems(item, spec.items, f"{place}[{k}]"))
    return found


def _object(value: Mapping[str, Any], fields: Mapping[str, Spec], place: str) -> list[str]:
    found = [f"{place}.{name}: is required" for name, sub in fields.items() if sub.required and name not in value]
    for name, sub in fields.items():
        if name in value:
            found.extend(problems(value[name], sub, f"{place}.{name}"))
    return found


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is(value: Any, kind: str) -> bool:
    if kind == "any":
        return True
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return _number(value) and math.isfinite(value)
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "list":
        return isinstance(value, list)
    if kind == "datetime":
        return isinstance(value, str) and iso_time(value) is not None
    raise ValueError(f"unknown kind {kind!r}")


def iso_time(text: str) -> datetime | None:
    """ISO 8601 as both sites write it (``2026-12-05T18:10:00Z``, ``2025-04-05T13:00:00.000``)."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def all_problems(values: Sequence[Any], spec: Spec, name: str = "game") -> list[str]:
    """Every problem of every value, each placed by its index."""
    return [line for k, value in enumerate(values) for line in problems(value, spec, f"{name}[{k}]")]
