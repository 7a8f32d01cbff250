"""One verdict for every check: passed, not attempted, or failed with a kind and a direction.

A failure is raised as :class:`CheckFailed` (an ``AssertionError``, so a
lesson's ``expect_error(AssertionError)`` still catches it); it carries its
:class:`Verdict`, which the printer shows and the progress report reads as
data. A stub is recognised by ``NotImplementedError`` anywhere in the
learner's code: :class:`NotAttempted` then stops the whole check.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any


class Status(str, enum.Enum):
    PASSED = "passed"
    NOT_ATTEMPTED = "not attempted"
    FAILED = "failing"


class Kind(str, enum.Enum):
    """What is wrong, the first word of every failure's headline."""

    MISSING = "MISSING"  # something the stream holds never comes, or comes late
    EXTRA = "EXTRA"  # something comes that the stream does not hold, or comes early
    WRONG_VALUE = "WRONG VALUE"  # it comes when it should, with another value
    WRONG_ERROR = "WRONG ERROR"  # an error where none is due, or another error
    MISSING_ERROR = "MISSING ERROR"  # no error where the stream must raise one
    NOT_YOURS = "NOT YOURS"  # the code reaches the package's implementation of what the task asks for
    TOO_SLOW = "TOO SLOW"  # right answers, but the work grows faster than the input


#: The directions each kind may state (the word in brackets in the headline);
#: none when the kind says it all (a value that differs).
DIRECTIONS: dict[Kind, tuple[str, ...]] = {
    Kind.MISSING: ("late", "never", "too few"),
    Kind.EXTRA: ("early", "more", "too many"),
    Kind.WRONG_VALUE: ("state", "offset", "too low", "too high"),
    Kind.WRONG_ERROR: ("unexpected", "other class", "stopped", "early"),
    Kind.MISSING_ERROR: ("none raised",),
    Kind.NOT_YOURS: ("subclass", "holds", "calls", "raised by"),
    Kind.TOO_SLOW: ("grows",),
}


@dataclass(frozen=True)
class Verdict:
    """A check's result, as text for the learner and as data for the progress report.

    ``message`` is the learner-facing text; its first line is the headline
    (``your decoder is wrong: MISSING (late): ...``). For a failure on a
    stream, ``raw``/``cuts`` are the smallest input and split found and
    ``fixture`` the fixture that explains it; ``rule`` the task's rule it
    breaks, when the check knows it.
    """

    check: str
    status: Status
    message: str
    kind: Kind | None = None
    direction: str = ""
    fixture: str = ""
    raw: bytes | None = None
    cuts: tuple[int, ...] = ()
    rule: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def headline(self) -> str:
        return self.message.splitlines()[0] if self.message else ""

    def as_data(self) -> dict[str, Any]:
        """JSON-ready: what the progress report reads."""
        data = asdict(self)
        data["status"] = self.status.value
        data["kind"] = self.kind.value if self.kind else None
        data["raw"] = None if self.raw is None else self.raw.decode("latin-1")
        data["headline"] = self.headline
        return data


def headline_kind(kind: Kind, direction: str = "") -> str:
    """``MISSING (late)``: the kind, and the direction when it says more than the kind."""
    if direction and direction not in DIRECTIONS[kind]:
        raise ValueError(f"{direction!r} is not a direction of {kind.value}")
    return kind.value + (f" ({direction})" if direction else "")


class CheckFailed(AssertionError):
    """A failed check. In a notebook only its message is shown: IPython calls
    ``_render_traceback_`` instead of printing the frames of the engine."""

    def __init__(self, verdict: Verdict, found: Any = None, recheck: Callable[..., Any] | None = None) -> None:
        super().__init__(verdict.message)
        self.verdict = verdict
        self.found = found  # the comparator's Difference, for tests (kept fixed while shrinking)
        self.recheck = recheck  # fails(raw, cuts): re-runs the learner's code on another split

    def amend(self, sentence: str) -> None:
        """Add ``sentence`` to the message (what the check did that the learner should know)."""
        self.verdict = replace(self.verdict, message=f"{self.verdict.message}\n{sentence}")
        self.args = (self.verdict.message,)

    def name_check(self, check: str) -> None:
        """Say which check failed (the engine raises before it knows the check's name)."""
        self.verdict = replace(self.verdict, check=check)

    @property
    def raw(self) -> bytes:
        return self.verdict.raw or b""

    @property
    def cuts(self) -> tuple[int, ...]:
        return self.verdict.cuts

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


def failed(
    what: str,
    kind: Kind,
    says: str,
    details: str = "",
    *,
    direction: str = "",
    check: str = "",
    **more: Any,
) -> CheckFailed:
    """The one way a check words a failure: ``{what} is wrong: KIND (direction): says``, then details."""
    message = f"{what} is wrong: {headline_kind(kind, direction)}: {says}" + (f"\n{details}" if details else "")
    found = more.pop("found", None)
    recheck = more.pop("recheck", None)
    return CheckFailed(Verdict(check, Status.FAILED, message, kind, direction, **more), found, recheck)


class NotAttempted(BaseException):
    """A stub raised NotImplementedError. A BaseException, so that neither the
    harness nor a learner's ``except Exception`` takes it for an outcome."""


def attempted(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``, turning the stub's NotImplementedError into :class:`NotAttempted`."""
    try:
        return call(*args, **kwargs)
    except NotImplementedError as err:
        raise NotAttempted(getattr(call, "__qualname__", repr(call))) from err
