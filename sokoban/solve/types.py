"""The public types of :mod:`sokoban.solve`: limits, results, statistics, and the registry
of methods with their options declared as data.

Every method module registers itself with :func:`register` on import; :func:`check_options`
is the one place a method's options are checked (name, type, choice, range) and given
their defaults, so a method receives every option it declares.
"""

from __future__ import annotations

import dataclasses
import enum
import threading
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Protocol

import numpy as np

from sokoban.errors import SokobanError
from sokoban.level import Level
from sokoban.lurd import Solution

__all__ = [
    "DEFAULT_MEMORY",
    "METHODS",
    "Limits",
    "Method",
    "Option",
    "Progress",
    "SearchStats",
    "SolveResult",
    "Status",
    "check_options",
    "parse_option",
    "register",
]

#: The memory budget when :class:`Limits` gives none: searches stop rather than swap.
DEFAULT_MEMORY = 2 << 30


@dataclasses.dataclass(frozen=True)
class Limits:
    """Where a search stops: seconds of wall time, expanded nodes, bytes of search memory,
    and ``stop``: an event another thread sets to stop the search (between kernel calls,
    within about 50 ms; it then ends as if by its time limit).

    ``None`` means no limit (memory then defaults to :data:`DEFAULT_MEMORY`).
    """

    time: float | None = None
    nodes: int | None = None
    memory: int | None = None
    stop: threading.Event | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("time", "nodes", "memory"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise SokobanError(f"limit {name}={value!r} is negative")

    @property
    def memory_bytes(self) -> int:
        """The memory limit, or :data:`DEFAULT_MEMORY` when none is given."""
        return self.memory if self.memory is not None else DEFAULT_MEMORY


class Status(enum.Enum):
    """How a search ended."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    TIME_LIMIT = "time limit"
    NODE_LIMIT = "node limit"
    MEMORY_LIMIT = "memory limit"
    INVALID = "invalid"


@dataclasses.dataclass(frozen=True)
class SearchStats:
    """Effort of a search: nodes expanded, generated (children made, duplicates included),
    stored (distinct states kept), peak bytes of search arrays, wall-clock seconds.

    ``a + b`` is the effort of two searches one after the other: counts and seconds add,
    ``stored`` and ``peak_bytes`` take the larger (the first search's arrays are freed).
    """

    expanded: int = 0
    generated: int = 0
    stored: int = 0
    peak_bytes: int = 0
    seconds: float = 0.0

    @property
    def nodes_per_second(self) -> float:
        return self.expanded / self.seconds if self.seconds > 0 else 0.0

    def __add__(self, other: SearchStats) -> SearchStats:
        return SearchStats(
            self.expanded + other.expanded,
            self.generated + other.generated,
            max(self.stored, other.stored),
            max(self.peak_bytes, other.peak_bytes),
            self.seconds + other.seconds,
        )


@dataclasses.dataclass(frozen=True)
class SolveResult:
    """The outcome of :func:`~sokoban.solve.solve`: a verified solution when solved,
    whether it is proven optimal for what the method optimises, statistics, a one-line
    message, and the start position's lower bound on pushes (``None`` when the method
    computes none)."""

    status: Status
    solution: Solution | None
    method: str
    optimal: bool
    stats: SearchStats
    message: str = ""
    lower_bound: int | None = None

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED

    def _repr_html_(self) -> str:
        from sokoban import render

        return render.result_html(self)


class Progress(NamedTuple):
    """What a ``progress`` callback receives between kernel calls."""

    expanded: int
    nbytes: int
    seconds: float


#: A ``progress`` callback: called about ten times a second during a search.
ProgressCallback = Callable[[Progress], None]


@dataclasses.dataclass(frozen=True)
class Option:
    """A method's option: its name, type (``bool``, ``int``, ``float`` or ``str``), default
    (``None``: decided by the method, as ``help`` says), the values allowed (``choices``;
    with ``multiple``, several joined by commas), the least and greatest numbers allowed,
    and one line of help."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    multiple: bool = False

    def check(self, value: Any, method: str) -> Any:
        """``value`` checked and converted to :attr:`type`; :class:`SokobanError` quoting
        it otherwise. ``None`` stands for the default."""
        if value is None:
            return self.default
        where = f"option {self.name}={value!r} of method {method!r}"
        if self.type is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise SokobanError(f"{where} is not true or false")
            return bool(value)
        if self.type in (int, float):
            integral = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
            number = integral or (self.type is float and isinstance(value, (float, np.floating)))
            if not number:
                raise SokobanError(
                    f"{where} is not {'an integer' if self.type is int else 'a number'}"
                )
            value = self.type(value)
            if self.minimum is not None and value < self.minimum:
                raise SokobanError(f"{where} is below {self.minimum:g}")
            if self.maximum is not None and value > self.maximum:
                raise SokobanError(f"{where} is above {self.maximum:g}")
            return value
        if not isinstance(value, str):
            raise SokobanError(f"{where} is not a string")
        if self.choices:
            parts = value.split(",") if self.multiple else [value]
            for part in parts:
                if part not in self.choices:
                    raise SokobanError(f"{where} is not one of {', '.join(self.choices)}")
        return value

    def parse(self, text: str, method: str) -> Any:
        """The value of ``text`` (as given on a command line) by :attr:`type`, checked."""
        if self.type is bool:
            words = {"true": True, "on": True, "yes": True, "1": True}
            words.update({"false": False, "off": False, "no": False, "0": False})
            if text.lower() not in words:
                raise SokobanError(
                    f"option {self.name}={text!r} of method {method!r} is not true or false"
                )
            return words[text.lower()]
        if self.type in (int, float):
            try:
                number = self.type(text)
            except ValueError:
                kind = "an integer" if self.type is int else "a number"
                raise SokobanError(
                    f"option {self.name}={text!r} of method {method!r} is not {kind}"
                ) from None
            return self.check(number, method)
        return self.check(text, method)

    def describe(self) -> str:
        """One line: name, type, default, choices and help."""
        kind = "|".join(self.choices) if self.choices else self.type.__name__
        if self.multiple:
            kind += ",..."
        shown = str(self.default).lower() if self.type is bool else self.default
        default = "" if self.default is None else f" = {shown}"
        return f"{self.name} ({kind}){default}: {self.help}"


class MethodFunction(Protocol):
    def __call__(
        self, level: Level, limits: Limits, progress: ProgressCallback | None, **options: Any
    ) -> SolveResult: ...


@dataclasses.dataclass(frozen=True)
class Method:
    """A registered search method: ``function(level, limits, progress, **options) ->
    SolveResult``, what it is, what it minimises (``"pushes"``, ``"moves"`` or ``""``),
    whether its solutions are proven optimal for that, and its options."""

    name: str
    function: MethodFunction
    description: str
    optimises: str
    optimal: bool
    options: tuple[Option, ...] = ()

    def option(self, name: str) -> Option:
        """The option called ``name``; :class:`SokobanError` when the method has none."""
        for option in self.options:
            if option.name == name:
                return option
        takes = ", ".join(o.name for o in self.options) or "no options"
        raise SokobanError(f"unknown option {name!r} for method {self.name!r}; it takes {takes}")


#: The search methods by name.
METHODS: dict[str, Method] = {}


def method_named(name: str) -> Method:
    """The method of :data:`METHODS` called ``name``; a :class:`SokobanError` naming the
    methods there are when there is none."""
    spec = METHODS.get(name)
    if spec is None:
        raise SokobanError(f"unknown method {name!r}; choose from {', '.join(sorted(METHODS))}")
    return spec


def register(
    name: str,
    description: str,
    optimises: str = "",
    optimal: bool = False,
    options: tuple[Option, ...] = (),
) -> Callable[[MethodFunction], MethodFunction]:
    """Decorator adding a method to :data:`METHODS`.

    The function receives a valid, unsolved level, a :class:`Limits`, a progress callback
    (or ``None``) and every option of ``options``, checked (see :func:`check_options`);
    :func:`~sokoban.solve.solve` checks the level before and verifies the solution after.
    """

    def decorate(function: MethodFunction) -> MethodFunction:
        METHODS[name] = Method(name, function, description, optimises, optimal, options)
        return function

    return decorate


def check_options(method: Method, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every option of ``method``: the ``given`` ones checked, the others at their
    defaults; :class:`SokobanError` quoting an unknown option or a bad value."""
    for name in given:
        method.option(name)
    return {o.name: o.check(given.get(o.name), method.name) for o in method.options}


def parse_option(method: Method, assignment: str) -> tuple[str, Any]:
    """``NAME=VALUE`` (from a command line) as a name and a value parsed by the option's
    type; :class:`SokobanError` quoting it when malformed, unknown or bad."""
    name, equals, text = assignment.partition("=")
    if not equals or not name.strip():
        raise SokobanError(f"option {assignment!r} is not NAME=VALUE")
    name = name.strip()
    return name, method.option(name).parse(text.strip(), method.name)
