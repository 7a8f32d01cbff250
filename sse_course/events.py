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
from typing import TypeVar

from .errors import DEFAULT_MAX_EVENT_CHARS, EventTooLarge, IncompleteStream, check_limit

ASCII_DIGITS = frozenset("0123456789")

#: The largest reconnection time kept: an unsigned 64-bit count of milliseconds.
#: The standard sets no bound; a ``retry`` of more digits than this is ignored,
#: like any other value the stream cannot use, so no value can raise.
MAX_RETRY_MS = (1 << 64) - 1


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


@dataclass(frozen=True)
class Comment:
    """A comment line (``: keep-alive``), reported only when asked for:
    ``text`` is what follows the colon, one leading space dropped."""

    text: str


#: What a parser's ``feed`` and ``close`` return: ``Event`` items, or with
#: ``comments=True`` ``Event`` and ``Comment`` items (``SSEParser[Event]``,
#: ``SSEParser[Event | Comment]``).
Item = TypeVar("Item", bound="Event | Comment")

_new = object.__new__


def make_event(event_type: str, data: str, last_event_id: str, retry: int | None) -> Event:
    """The event a blank line dispatches (an empty type is ``"message"``), built as
    ``Event(...)`` would build it at a fraction of the cost: a parser builds one per
    event, and the frozen ``__init__`` dominates a small event."""
    event = _new(Event)
    fields = event.__dict__
    fields["type"], fields["data"] = event_type or "message", data
    fields["last_event_id"], fields["retry"] = last_event_id, retry
    return event


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
    Arabic-Indic or superscript digits; the standard does not. A value over
    :data:`MAX_RETRY_MS` is ignored (``int()`` of thousands of digits raises).
    """
    if not value or not ASCII_DIGITS.issuperset(value):
        return None
    digits = value.lstrip("0")
    if len(digits) > len(str(MAX_RETRY_MS)):
        return None
    retry = int(digits or "0")
    return retry if retry <= MAX_RETRY_MS else None


def id_accepted(value: str) -> bool:
    """An ``id`` field sets the ID unless its value contains U+0000 NULL."""
    return "\x00" not in value


def data_size(size: int, has_data: bool, value: str) -> int:
    """The event's data size, in characters, after one more data ``value``: values
    are joined by LF. An event whose size passes ``max_event_chars`` is refused."""
    return size + len(value) + has_data


def check_event_id(value: str) -> str:
    """Refuse a starting last event ID that no stream could have set: NUL, CR, LF, or a surrogate
    (UTF-8 never decodes to one, and the ``Last-Event-ID`` header is the ID encoded as UTF-8)."""
    if (
        not isinstance(value, str)
        or any(c in value for c in "\x00\r\n")
        or any("\ud800" <= c <= "\udfff" for c in value)
    ):
        raise ValueError(f"last_event_id must be a str without NUL, CR, LF or a surrogate, got {value!r}")
    return value


class EventAssembler:
    """Collects fields into events and dispatches on a blank line.

    State that lives across events: ``last_event_id`` (what a reconnecting
    client would send) and ``retry``. State reset by each blank line: the data
    lines, the event type, and whether a block is open. With ``comments=True``
    a comment line gives a :class:`Comment` among the events.
    """

    def __init__(
        self,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        strict: bool = True,
        *,
        last_event_id: str = "",
        comments: bool = False,
    ) -> None:
        self._max_event_chars = check_limit("max_event_chars", max_event_chars)
        self.strict = strict
        self._comments = comments
        self.data_lines: list[str] = []
        self.event_type = ""
        self.id_buffer = check_event_id(last_event_id)  # set by 'id'; becomes last_event_id at dispatch
        self.last_event_id = self.id_buffer
        self.retry: int | None = None
        self.in_block = False  # a field line came since the last blank line
        self._data_chars = 0

    def feed(self, lines: list[str]) -> list[Event | Comment]:
        """Return the events (and comments, if asked for) these lines give."""
        events: list[Event | Comment] = []
        for line in lines:
            try:
                event = self.feed_line(line)
            except EventTooLarge as err:
                err.complete(events)
                raise
            if event is not None:
                events.append(event)
        return events

    def feed_line(self, line: str) -> Event | Comment | None:
        """Process one line; return the event it dispatches, if any."""
        if not line:
            return self.dispatch()
        name, value = split_field(line)
        if line.startswith(":"):
            return Comment(value) if self._comments else None
        self.in_block = True
        if name == "data":
            self._add_data(value)
        elif name == "event":
            self.event_type = value
        elif name == "id":
            if id_accepted(value):
                self.id_buffer = value
        elif name == "retry":
            retry = parse_retry(value)
            if retry is not None:
                self.retry = retry
        return None

    def close(self) -> list[Event]:
        """End of stream: an open block is an error (strict) or discarded."""
        if self.in_block and self.strict:
            raise IncompleteStream.inside_event()
        self._reset_block()
        return []

    def _add_data(self, value: str) -> None:
        """Append a data line's value, refusing to pass the event's limit."""
        size = data_size(self._data_chars, bool(self.data_lines), value)
        if size > self._max_event_chars:
            raise EventTooLarge(self._max_event_chars)
        self.data_lines.append(value)
        self._data_chars = size

    def dispatch(self) -> Event | None:
        """The standard's dispatch (a blank line): commit the id; no data means no event."""
        self.last_event_id = self.id_buffer
        event = None
        if self.data_lines:
            data = self.data_lines[0] if len(self.data_lines) == 1 else "\n".join(self.data_lines)
            event = make_event(self.event_type, data, self.last_event_id, self.retry)
        self._reset_block()
        return event

    def _reset_block(self) -> None:
        self.data_lines = []
        self._data_chars = 0
        self.event_type = ""
        self.in_block = False
