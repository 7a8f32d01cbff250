"""events -> payloads: JSON parsed from complete events only, separately from SSE.

SSE framing knows nothing about JSON: ``data`` is text. Whether it holds JSON,
which event types carry it, which keys it must have, and whether a sentinel
such as ``[DONE]`` ends the stream are the *provider's* contract, so they are
explicit configuration of :class:`JSONPayloads`, never rules of the SSE layer.
A :class:`PayloadError` is therefore not an ``SSEError``.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from typing import Any

from .events import Event

EXCERPT_CHARS = 40


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """A short, printable excerpt of ``text`` for error messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for error messages."""
    if isinstance(value, bool):
        return "boolean"
    names = {dict: "object", list: "array", str: "string", int: "number", float: "number"}
    return names.get(type(value), "null")


class PayloadError(ValueError):
    """An event's data broke the payload contract (not an SSE framing error).

    ``index`` is the event's position among the events the adapter was fed
    (0-based, a Python index); the message numbers events from 1, as every check
    and lesson does ("event 1" is the first). ``event`` is the event itself
    (None at the end of the stream), ``payloads`` the payloads the same
    ``feed()`` call completed before the failure (nothing is lost).
    """

    def __init__(self, problem: str, index: int, event: Event | None) -> None:
        where = (
            f"event {index + 1} (type {event.type!r}, data {excerpt(event.data)})"
            if event
            else f"after {index} event{'' if index == 1 else 's'}"
        )
        super().__init__(f"{where}: {problem}")
        self.index = index
        self.event = event
        self.payloads: list[Any] = []

    def carry(self, payloads: list[Any]) -> None:
        """Carry ``payloads``, completed by the same ``feed()`` before the failure."""
        self.payloads = payloads


def parse_json(event: Event, index: int) -> Any:
    """Parse one event's data as JSON, or raise PayloadError saying where."""
    if not event.data:
        raise PayloadError("data is empty, expected JSON", index, event)
    try:
        return json.loads(event.data)
    except json.JSONDecodeError as err:
        raise PayloadError(f"invalid JSON at character {err.pos}: {err.msg}", index, event) from None


class JSONPayloads:
    """Sans-I/O adapter: ``feed(events) -> list of payloads``; ``close()`` at the end.

    * ``event_types``: only events of these types carry JSON; others are
      skipped (``None``: every event).
    * ``required_keys``: each payload must be a JSON object with these keys.
    * ``end_marker``: data that ends the stream (e.g. ``"[DONE]"``); it yields no
      payload, an event after it is an error, and ``close()`` without it is an
      error (the stream was cut before the provider finished).
    """

    def __init__(
        self,
        *,
        event_types: Collection[str] | None = None,
        required_keys: Iterable[str] = (),
        end_marker: str | None = None,
    ) -> None:
        self.event_types = None if event_types is None else frozenset(event_types)
        self.required_keys = tuple(required_keys)
        self.end_marker = end_marker
        self.ended = False
        self.count = 0  # events fed so far

    def feed(self, events: Iterable[Event]) -> list[Any]:
        """Return the payloads of these events, in order."""
        payloads: list[Any] = []
        for event in events:
            index, self.count = self.count, self.count + 1
            try:
                payload = self._payload(event, index)
            except PayloadError as err:
                err.carry(payloads)
                raise
            if payload is not _SKIP:
                payloads.append(payload)
        return payloads

    def close(self) -> list[Any]:
        """End of stream: a configured end marker must have been seen."""
        if self.end_marker is not None and not self.ended:
            raise PayloadError(f"stream ended before the end marker {self.end_marker!r}", self.count, None)
        return []

    def _payload(self, event: Event, index: int) -> Any:
        if self.ended:
            raise PayloadError(f"event after the end marker {self.end_marker!r}", index, event)
        if self.event_types is not None and event.type not in self.event_types:
            return _SKIP
        if self.end_marker is not None and event.data == self.end_marker:
            self.ended = True
            return _SKIP
        payload = parse_json(event, index)
        self._check_shape(payload, event, index)
        return payload

    def _check_shape(self, payload: Any, event: Event, index: int) -> None:
        if not self.required_keys:
            return
        if not isinstance(payload, dict):
            raise PayloadError(f"expected a JSON object, got {json_type(payload)}", index, event)
        missing = [key for key in self.required_keys if key not in payload]
        if missing:
            raise PayloadError(f"JSON object lacks required keys {missing}", index, event)


_SKIP = object()
