"""lines -> events: fields, comments and dispatch, as the WHATWG standard says.

HTML Living Standard, "Server-sent events", "Interpreting an event stream":
a line is a comment (starts with ':'), a blank line (dispatch), or a field
``name:value`` (first colon only, one leading space of the value dropped; no
colon means the whole line is the name and the value is empty). Known fields:
``data``, ``event``, ``id`` (ignored if it contains U+0000) and ``retry``
(ASCII digits only); others are ignored; names are case-sensitive.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import DEFAULT_MAX_EVENT_CHARS, EventTooLarge, IncompleteStream, check_limit

ASCII_DIGITS = frozenset("0123456789")


@dataclass(frozen=True)
class Event:
    """One dispatched event.

    ``last_event_id`` is the stream's last event ID when this event was
    dispatched (it persists across events, as a browser's does); ``retry`` is
    the stream's reconnection time in milliseconds as last set by a valid
    ``retry`` field before this event, or ``None`` if none was.
    """

    type: str
    data: str
    last_event_id: str = ""
    retry: int | None = None


def split_field(line: str) -> tuple[str, str]:
    """Return (name, value) of a field line: first colon, one space dropped.

    The value is sliced once from the line, so a huge data line is copied once.
    """
    colon = line.find(":")
    if colon < 0:
        return line, ""
    start = colon + 2 if line.startswith(" ", colon + 1) else colon + 1
    return line[:colon], line[start:]


def parse_retry(value: str) -> int | None:
    """The reconnection time if ``value`` is ASCII digits only, else None.

    ``int()`` and ``str.isdigit()`` also accept '+5', ' 5', '1_000', and
    Arabic-Indic or superscript digits; the standard does not.
    """
    if value and ASCII_DIGITS.issuperset(value):
        return int(value)
    return None


class EventAssembler:
    """Collects fields into events and dispatches on a blank line.

    State that lives across events: ``last_event_id`` (what a reconnecting
    client would send) and ``retry``. State reset by each blank line: the data
    lines, the event type, and whether a block is open.
    """

    def __init__(self, max_event_chars: int = DEFAULT_MAX_EVENT_CHARS, strict: bool = True) -> None:
        self.max_event_chars = check_limit("max_event_chars", max_event_chars)
        self.strict = strict
        self.data_lines: list[str] = []
        self.event_type = ""
        self.id_buffer = ""  # set by 'id'; becomes last_event_id at dispatch
        self.last_event_id = ""
        self.retry: int | None = None
        self.in_block = False  # a field line came since the last blank line
        self._data_chars = 0

    def feed(self, lines: list[str]) -> list[Event]:
        """Return the events these lines dispatch."""
        events: list[Event] = []
        for line in lines:
            try:
                event = self.feed_line(line)
            except EventTooLarge as err:
                err.completed = events
                raise
            if event is not None:
                events.append(event)
        return events

    def feed_line(self, line: str) -> Event | None:
        """Process one line; return the event it dispatches, if any."""
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        self.in_block = True
        name, value = split_field(line)
        if name == "data":
            self._add_data(value)
        elif name == "event":
            self.event_type = value
        elif name == "id":
            if "\x00" not in value:
                self.id_buffer = value
        elif name == "retry":
            retry = parse_retry(value)
            if retry is not None:
                self.retry = retry
        return None

    def close(self) -> list[Event]:
        """End of stream: an open block is an error (strict) or discarded."""
        if self.in_block and self.strict:
            raise IncompleteStream("stream ended inside an event (no blank line after its last field)", [])
        self._reset_block()
        return []

    def _add_data(self, value: str) -> None:
        size = self._data_chars + len(value) + (1 if self.data_lines else 0)
        if size > self.max_event_chars:
            raise EventTooLarge(self.max_event_chars)
        self.data_lines.append(value)
        self._data_chars = size

    def _dispatch(self) -> Event | None:
        """The standard's dispatch: commit the id; no data means no event."""
        self.last_event_id = self.id_buffer
        event = None
        if self.data_lines:
            data = "\n".join(self.data_lines)
            event = Event(self.event_type or "message", data, self.last_event_id, self.retry)
        self._reset_block()
        return event

    def _reset_block(self) -> None:
        self.data_lines = []
        self._data_chars = 0
        self.event_type = ""
        self.in_block = False
