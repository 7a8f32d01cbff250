"""Calling the learner's code: a stub stops the check, and every call is watched for NOT YOURS."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import SSEError
from .ownership import Watch
from .verdict import attempted


class Guarded:
    """Wraps a learner's object so a NotImplementedError from any method stops
    the whole check instead of counting as a wrong outcome.

    An SSE error raised without ``completed`` (``IncompleteStream("...")``)
    is taken to carry nothing: ``empty`` of the layer's output type.
    """

    def __init__(self, target: Any, empty: Any = None, watch: Watch | None = None) -> None:
        self._target = target
        self._empty = empty
        self._watch = watch or Watch(None)

    def feed(self, value: Any) -> Any:
        return self._call(self._target.feed, value)

    def close(self) -> Any:
        return self._call(self._target.close)

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return watched(self._watch, method, *args)
        except SSEError as err:
            if err.completed is None and self._empty is not None:
                err.complete(self._empty)
            raise

    @property
    def last_event_id(self) -> Any:
        """Read after every call (what a reconnecting client sends): spelled out, not
        left to ``__getattr__``, whose failed lookup first costs more than the read."""
        return self._target.last_event_id

    @property
    def retry(self) -> Any:
        return self._target.retry

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


def watched(watch: Watch, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``attempted(call, ...)`` inside the watch; the error it raises is judged too."""
    with watch.inside():
        try:
            return attempted(call, *args, **kwargs)
        except Exception as err:
            watch.judge_error(err)
            raise


def guarded(factory: Callable[..., Any], empty: Any = None, watch: Watch | None = None) -> Callable[..., Guarded]:
    """A factory whose objects are :class:`Guarded`, constructor included, and judged for what they hold."""
    watch = watch or Watch(None)

    def make(*args: Any, **kwargs: Any) -> Guarded:
        target = watched(watch, factory, *args, **kwargs)
        watch.judge_object(target)
        return Guarded(target, empty, watch)

    return make
