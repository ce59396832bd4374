"""Shared machinery for the typed records (inputs and events): a ``kind`` name and a
lossless dict round trip, so journals and protocols can store them as JSON.
"""

from __future__ import annotations

import dataclasses
import re
from enum import Enum
from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="Record")


class Record:
    """Base for frozen dataclasses that travel as ``{"type": kind, ...fields}``."""

    kind: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.kind = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"type": self.kind}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            body[f.name] = _plain(getattr(self, f.name))
        return body


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Enum):
        return value.value
    return value


def family(base: type[R]) -> dict[str, type[R]]:
    """Every concrete record class below ``base``, by kind."""
    found: dict[str, type[R]] = {}
    stack: list[type[R]] = list(base.__subclasses__())
    while stack:
        cls = stack.pop()
        if dataclasses.is_dataclass(cls):
            found[cls.kind] = cls
        stack.extend(cls.__subclasses__())
    return found


def from_dict(base: type[R], data: dict[str, Any]) -> R:
    """Rebuild a record written by :meth:`Record.to_dict`; the field types drive the coercion."""
    kinds = family(base)
    cls = kinds[data["type"]]
    hints = {f.name: f.type for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    args = {name: _typed(str(hints[name]), data[name]) for name in hints}
    return cls(**args)


def _typed(hint: str, value: Any) -> Any:
    from .roles import Role  # local: records must stay importable before roles

    if value is None:
        return None
    if hint.startswith("tuple[Role"):
        return tuple(Role(v) for v in value)
    if hint.startswith("tuple[tuple[int, tuple[int"):
        return tuple((int(a), tuple(int(x) for x in b)) for a, b in value)
    if hint.startswith("tuple[tuple[int, int]"):
        return tuple((int(a), int(b)) for a, b in value)
    if hint.startswith("tuple[tuple[str, int]"):
        return tuple((str(a), int(b)) for a, b in value)
    if hint.startswith("tuple"):
        return tuple(value)
    if hint.startswith("Role"):
        return Role(value)
    return value
