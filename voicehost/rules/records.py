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


def quick_init(cls: type) -> None:
    """Give a frozen dataclass a constructor twice as fast as the generated one.

    A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (its own
    ``__setattr__`` refuses), which costs about 400 ns per record; a game builds a request and
    one or two events for every input, so that was a third of the engine's time. Writing the
    fields straight into the instance ``__dict__`` is what ``object.__setattr__`` ends up doing,
    without the detour. Everything else — immutability, ``__eq__``, ``__hash__``, ``__repr__``,
    defaults — stays the dataclass's own. Classes this cannot mirror exactly (slots,
    ``__post_init__``, factories, ``init=False`` fields) keep the generated one.
    """
    params = dataclasses.fields(cls)
    if (
        "__slots__" in vars(cls) or hasattr(cls, "__post_init__")
        or any(not f.init or f.kw_only or f.default_factory is not dataclasses.MISSING for f in params)
    ):
        return
    names = [f.name for f in params]
    lines = [f"    fields[{name!r}] = {name}" for name in names]
    source = "\n".join([f"def __init__(self, {', '.join(names)}):" if names else "def __init__(self):",
                        "    fields = self.__dict__", *lines])
    namespace: dict[str, Any] = {}
    exec(source, {}, namespace)  # the same technique dataclasses itself uses to build __init__
    init = namespace["__init__"]
    init.__defaults__ = cls.__init__.__defaults__  # type: ignore[misc]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__  # type: ignore[misc]
    cls.__init__ = init  # type: ignore[misc]
