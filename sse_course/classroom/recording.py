"""The recording client of lesson 08: what one httpx connection read, chunk by chunk.

:func:`fetch` is the lesson's client with nothing hidden: httpx streams the
response, every chunk ``iter_raw()`` yields is recorded as it was read, and one
``SSEParser`` turns the chunks into events. It keeps the parser so that it can
report ``last_event_id``: the ID committed at the last dispatch, which a
reconnecting client sends as ``Last-Event-ID``. (It shows the body's bytes as
the HTTP layer received them, so it reads ``iter_raw()``; the demo server sends
no content coding unless asked to. The package's edge, ``httpx_adapter``, and
the client read ``iter_bytes()``.) It uses the httpx client it is given (the
course server's ``client()``, which in the browser is an in-process transport),
else a new one.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

import httpx

from ..errors import SSEError
from ..events import Event
from ..httpx_adapter import check_event_stream, sse_headers
from ..parser import SSEParser

#: Seconds an HTTP request may take in the lesson and the checks.
TIMEOUT = 5.0


@dataclass(frozen=True)
class Received:
    """What one client run saw: the chunks as read, the events, the error, the ID to resume from."""

    reads: tuple[bytes, ...]
    events: tuple[Event, ...]
    error: SSEError | None
    last_event_id: str


def fetch(url: str, profile: str = "strict", last_event_id: str = "", client: httpx.Client | None = None) -> Received:
    """GET ``url`` as an event stream (with ``client``, else a new one); record each chunk read and parse it."""
    parser = SSEParser(profile)
    reads: list[bytes] = []
    events: list[Event] = []
    error = None
    try:
        with httpx.Client(timeout=TIMEOUT) if client is None else nullcontext(client) as http:
            # httpx takes str and bytes values in one dict (a non-ASCII ID goes as bytes); its annotation does not.
            with http.stream("GET", url, headers=sse_headers(last_event_id)) as response:  # type: ignore[arg-type]
                check_event_stream(response)
                for chunk in response.iter_raw():
                    reads.append(chunk)
                    events += parser.feed(chunk)
        events += parser.close()
    except SSEError as err:
        events += err.events  # type: ignore[arg-type]  # no comments=True: only events are carried
        error = err
    return Received(tuple(reads), tuple(events), error, parser.last_event_id)


def show_received(received: Received) -> str:
    """The reads (cuts drawn as ' | '), the events, and how the stream ended."""
    ending = "no error" if received.error is None else f"{type(received.error).__name__}: {received.error}"
    lines = [f"client read:  {' | '.join(repr(chunk) for chunk in received.reads)}"]
    lines += [
        f"event: {event.type!r} data={event.data!r} last_event_id={event.last_event_id!r}" for event in received.events
    ]
    lines.append(f"end: {ending}; a reconnecting client sends Last-Event-ID: {received.last_event_id!r}")
    return "\n".join(lines)
