"""Checks that know who wrote the code: NOT YOURS when a "write X" task reaches the package's X.

A task that says "write X" is practice only if X is the learner's. A
:class:`NotYours` declaration names what the learner's code must not reach:

* ``classes``: the learner's class may not subclass them, and its objects may
  not hold one (a wrapper that delegates); ``bases``: only not subclass them
  (a task that builds on the package's class by holding it);
* ``code``: modules, classes, functions or builtins whose code must not run
  while the learner's code runs (a call, however it was imported), watched
  with ``sys.setprofile`` only inside the learner's calls;
* ``raised_by``: modules or functions that must not be where the learner's
  error of a class in ``errors`` comes from (the package's ``LineTooLong``,
  when the task is to write the limit).

The check reports the first reach it sees, with ``task``: what the task asks.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

#: How deep into a learner's object its held values are searched (obj.a.b).
HOLD_DEPTH = 2
#: Learner calls watched with the profiler: enough for the first fixtures, no cost after.
WATCHED_CALLS = 3000
#: The block a call runs in when nothing is watched.
UNWATCHED = nullcontext()


def _name(thing: Any) -> str:
    module = getattr(thing, "__module__", None) or ""
    qualname = str(getattr(thing, "__qualname__", None) or getattr(thing, "__name__", repr(thing)))
    return f"{module}.{qualname}" if module and module != "builtins" else qualname


def _codes_of(thing: Any) -> Iterator[types.CodeType]:
    """The code objects of a function, or of every function a class defines."""
    if isinstance(thing, types.FunctionType):
        yield thing.__code__
    elif isinstance(thing, (staticmethod, classmethod)):
        yield from _codes_of(thing.__func__)
    elif isinstance(thing, property):
        for part in (thing.fget, thing.fset, thing.fdel):
            if part is not None:
                yield from _codes_of(part)
    elif isinstance(thing, type):
        for value in vars(thing).values():
            yield from _codes_of(value)


@dataclass(frozen=True)
class NotYours:
    """What a "write X" task forbids, and the task's words for the message."""

    task: str
    classes: tuple[type, ...] = ()
    bases: tuple[type, ...] = ()
    code: tuple[Any, ...] = ()
    raised_by: tuple[Any, ...] = ()
    errors: tuple[type[BaseException], ...] = (Exception,)
    files: frozenset[str] = field(init=False)
    codes: frozenset[types.CodeType] = field(init=False)
    builtins: tuple[Any, ...] = field(init=False)

    def __post_init__(self) -> None:
        files = {thing.__file__ for thing in self.code if isinstance(thing, types.ModuleType)}
        codes = {code for thing in self.code for code in _codes_of(thing)}
        codes.update(code for cls in self.classes for code in _codes_of(cls))
        builtin = tuple(thing for thing in self.code if isinstance(thing, types.BuiltinFunctionType))
        object.__setattr__(self, "files", frozenset(files))
        object.__setattr__(self, "codes", frozenset(codes))
        object.__setattr__(self, "builtins", builtin)

    def subclassed(self, learner: Any) -> str | None:
        """The package class the learner's class (or factory) derives from, if any."""
        if isinstance(learner, type):
            for cls in self.classes + self.bases:
                if issubclass(learner, cls):
                    return f"your class is a subclass of {_name(cls)}"
        return None

    def held(self, obj: Any, depth: int = HOLD_DEPTH, path: str = "your object") -> str | None:
        """The package object the learner's object is, or holds in an attribute, if any."""
        if isinstance(obj, self.classes):
            return f"{path} is a {_name(type(obj))}"
        if depth == 0:
            return None
        values: dict[str, Any] = {}
        try:
            values = dict(vars(obj))
        except TypeError:
            pass
        if isinstance(obj, (list, tuple)):
            values = {f"[{i}]": value for i, value in enumerate(obj)}
        elif isinstance(obj, dict):
            values = {f"[{key!r}]": value for key, value in obj.items()}
        for name, value in values.items():
            found = self.held(value, depth - 1, f"{path}{'' if name.startswith('[') else '.'}{name}")
            if found:
                return found
        return None

    def raised(self, err: BaseException) -> str | None:
        """The forbidden function an error was raised in, if any: the error itself, or one
        it was raised from or while handling (an error caught and raised again as new)."""
        if not isinstance(err, self.errors):
            return None
        codes = {code for function in self.raised_by for code in _codes_of(function)}
        files = {thing.__file__ for thing in self.raised_by if isinstance(thing, types.ModuleType)}
        seen: set[int] = set()
        cause: BaseException | None = err
        while cause is not None and id(cause) not in seen:
            seen.add(id(cause))
            tb = cause.__traceback__
            while tb is not None:
                if tb.tb_frame.f_code in codes or tb.tb_frame.f_code.co_filename in files:
                    how = "is raised by" if cause is err else f"re-raises the {type(cause).__name__} raised by"
                    return f"its {type(err).__name__} {how} {_qualname(tb.tb_frame)}, the package's, not yours"
                tb = tb.tb_next
            cause = cause.__cause__ or cause.__context__
        return None


class Watch:
    """Records what forbidden code runs while the learner's code runs."""

    def __init__(self, rule: NotYours | None, budget: int = WATCHED_CALLS) -> None:
        self.rule = rule
        self.reached: list[str] = []
        self.budget = budget

    def inside(self) -> AbstractContextManager[None]:
        """Watch the calls made inside this block (the learner's call), while
        the budget lasts; after that, or with nothing to watch, a block costs nothing."""
        rule = self.rule
        if rule is None or not (rule.files or rule.codes or rule.builtins) or self.reached or self.budget <= 0:
            return UNWATCHED
        self.budget -= 1
        return self._profiled(rule)

    @contextmanager
    def _profiled(self, rule: NotYours) -> Iterator[None]:
        before = sys.getprofile()

        def profile(frame: types.FrameType, event: str, arg: Any) -> None:
            if event == "call":
                code = frame.f_code
                if code in rule.codes or code.co_filename in rule.files:
                    self.reached.append(f"it runs {_qualname(frame)}")
            elif event == "c_call" and any(arg is builtin for builtin in rule.builtins):
                self.reached.append(f"it calls {_name(arg)}")

        sys.setprofile(profile)
        try:
            yield
        finally:
            sys.setprofile(before)

    def judge_error(self, err: BaseException) -> None:
        if self.rule is not None and self.rule.raised_by:
            found = self.rule.raised(err)
            if found:
                self.reached.append(found)

    def judge_object(self, obj: Any) -> None:
        if self.rule is not None and self.rule.classes:
            found = self.rule.held(obj)
            if found:
                self.reached.append(found)


def _qualname(frame: types.FrameType) -> str:
    module = frame.f_globals.get("__name__", "")
    name = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)  # co_qualname: Python 3.11+
    return f"{module}.{name}" if module else name


def direction_of(reason: str) -> str:
    """The NOT YOURS direction a reason states."""
    if "subclass" in reason:
        return "subclass"
    if reason.startswith("its "):
        return "raised by"
    if reason.startswith("it "):
        return "calls"
    return "holds"
