"""Exercise 08: an answer read from a real, possibly compressed, possibly cut stream.

The reference :func:`answer_of` gives the text of the ``message`` events that
arrived whole and whether the stream did; the check serves each case with the
course server's in-process form (an httpx transport: no thread, no socket, so it
runs in the browser too), plain and gzip, close-delimited and chunked. Each
planned write is one chunk of the body, so every case reaches the reader in the
writes it was planned in, wherever the check runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from ... import client as client_module
from ...errors import IncompleteStream, SSEError
from ...events import Event
from ...parser import SSEParser
from ..checking import (
    Kind,
    NotAttempted,
    NotYours,
    Watch,
    exercise,
    failed,
    not_yours,
    watched,
)
from ..harness import (
    interesting_cuts,
)
from ..inprocess import InProcessServer

# --- the reference ------------------------------------------------------------


def answer_of(served: bytes, cut_by_http: bool = False) -> tuple[str, bool]:
    """What exercise 08's reader must return for the bytes a server sent: the data of
    the ``message`` events joined, and False when the stream stopped inside a line or an
    event, or when HTTP itself says the body was cut (a chunked body dropped short)."""
    parser = SSEParser()
    events, whole = parser.feed(served), not cut_by_http
    try:
        events += [] if cut_by_http else parser.close()
    except IncompleteStream as err:
        events, whole = events + [event for event in err.events if isinstance(event, Event)], False
    return "".join(event.data for event in events if event.type == "message"), whole


# --- the check ----------------------------------------------------------------


#: name -> (why it matters, the stream): an answer in token events, with events that carry none.
ANSWER_STREAMS: dict[str, tuple[str, bytes]] = {
    "tokens": (
        "tokens, a ping between them, an emoji cut across writes",
        "data: Hel\n\nevent: ping\ndata: {}\n\ndata: lo \U0001f600\n\n".encode(),
    ),
    "crlf": ("CRLF line ends, a two-line event (its lines join with LF)", b"data: a\r\n\r\ndata: b\r\ndata: c\r\n\r\n"),
    "comments": ("a keep-alive comment and an id-only block", b": keep-alive\n\nid: 1\n\ndata: x\n\n"),
}


@dataclass(frozen=True)
class ServedCase:
    """One served stream: cut short at ``drop_at``, compressed or not."""

    name: str
    body: bytes
    drop_at: int
    encoding: str | None
    chunked: bool = False

    @property
    def served(self) -> bytes:
        return self.body[: self.drop_at]

    @property
    def cut_by_http(self) -> bool:
        """A chunked body dropped short: httpx raises RemoteProtocolError while it is read."""
        return self.chunked and self.drop_at < len(self.body)

    def expected(self) -> tuple[str, bool]:
        return answer_of(self.served, self.cut_by_http)

    def show(self) -> str:
        dropped = "" if self.drop_at == len(self.body) else f", dropped after byte {self.drop_at} of {len(self.body)}"
        coded = ", sent gzip-compressed (Content-Encoding: gzip)" if self.encoding else ""
        framed = ", sent chunked (Transfer-Encoding: chunked)" if self.chunked else ""
        return f"stream {self.name}{dropped}{coded}{framed}; the server sent\n    {self.served!r}"


#: How the cases are served, in turn: plain, gzip, chunked, gzip and chunked (the body's two endings, and both codings).
SERVED_AS: tuple[tuple[str | None, bool], ...] = ((None, False), ("gzip", False), (None, True), ("gzip", True))


def served_cases() -> list[ServedCase]:
    """Each stream whole and dropped after each line end and just before it, served in turn
    plain, gzip-compressed, chunked, and both; smallest first. A close-delimited body just
    ends at a drop; a chunked one is cut, and httpx says so."""
    cases: set[tuple[str, bytes, int]] = set()
    for name, (_about, body) in ANSWER_STREAMS.items():
        ends = [i + 1 for i, byte in enumerate(body) if byte in b"\r\n"]
        cases.update((name, body, drop) for drop in {len(body), *ends, *(end - 1 for end in ends)} if drop > 0)
    ordered = sorted(cases, key=lambda case: (case[2], case[0]))
    return [
        ServedCase(name, body, drop, *SERVED_AS[i % len(SERVED_AS)]) for i, (name, body, drop) in enumerate(ordered)
    ]


ANSWER_NOT_YOURS = NotYours(
    "read the response yourself, with one strict parser: not the course's own answer_of, "
    "nor the package's reconnecting client",
    code=(answer_of, client_module),
)


@exercise("your read_answer")
def check_read_answer(read_answer: Callable[[httpx.Client, str], tuple[str, bool]]) -> str:
    """Exercise 08: serve every case through httpx; ``read_answer(client, url)`` must return
    the text of the ``message`` events that arrived whole, and whether the stream did."""
    cases = served_cases()
    watch = Watch(ANSWER_NOT_YOURS)
    for case in cases:
        check_served(read_answer, case, watch)
    return (
        f"on {len(cases)} streams the course's server sent, cut after every line end and just before it, "
        "ending with the connection or as a cut chunked body, plain or gzip-compressed"
    )


def check_served(
    read_answer: Callable[[httpx.Client, str], tuple[str, bool]],
    case: ServedCase,
    watch: Watch,
) -> None:
    """Serve one case, call the learner's reader on it with a client of that server, raise what differs."""
    server = InProcessServer(
        case.body,
        cuts=interesting_cuts(case.served),
        drop_at=case.drop_at,
        encoding=case.encoding,
        chunked=case.chunked,
    )
    with server.client() as client:
        try:
            got = watched(watch, read_answer, client, server.url)
        except NotAttempted:
            raise
        except Exception as err:  # a wrong reader may raise anything: that is what it did
            got = err
    if watch.reached:
        raise not_yours("your read_answer", ANSWER_NOT_YOURS, watch.reached[0])
    expected = case.expected()
    if got != expected:
        kind, says, details, direction = answer_difference(case, expected, got)
        raise failed("your read_answer", kind, says, details, direction=direction, fixture=case.name, raw=case.served)


def answer_difference(case: ServedCase, expected: tuple[str, bool], got: Any) -> tuple[Kind, str, str, str]:
    """Kind, headline sentence and details of a wrong answer; the headline names the fix where it can."""
    details = f"{case.show()}\nexpected: {expected!r}\n     got: {got!r}"
    if isinstance(got, Exception):
        hint = ""
        if isinstance(got, httpx.RemoteProtocolError) and case.cut_by_http:
            hint = (
                " The body was sent chunked and the connection dropped before its end: httpx raises"
                " RemoteProtocolError while you read. Catch it and treat it as the stream ending early:"
                " keep the text that arrived whole, and report that the stream did not."
            )
        elif isinstance(got, httpx.TransportError):  # no served case raises another: a connection of its own
            hint = " GET the url with the client you are given: the check's server answers that client only."
        elif case.encoding and isinstance(got, SSEError):
            hint = " The body is compressed: read response.iter_bytes(), which undoes gzip; iter_raw() hands over the compressed bytes."  # noqa: E501
        elif isinstance(got, SSEError):
            hint = " A cut stream is expected here: catch IncompleteStream and keep the events that arrived whole."
        return Kind.WRONG_ERROR, f"it raises {type(got).__name__}: {got}.{hint}", details, "unexpected"
    if not (isinstance(got, tuple) and len(got) == 2):
        return (
            Kind.WRONG_VALUE,
            f"it should return a pair (text, arrived_whole), not {type(got).__name__}.",
            details,
            "",
        )
    (text, whole), (got_text, got_whole) = expected, got
    if got_text != text:
        if text.startswith(got_text):
            return (
                Kind.MISSING,
                f"the text lacks {text[len(got_text) :]!r}, which arrived in whole events.",
                details,
                "never",
            )
        if got_text.startswith(text):
            return (
                Kind.EXTRA,
                f"the text has {got_text[len(text) :]!r} more than the message events that arrived whole.",
                details,
                "more",
            )
        return Kind.WRONG_VALUE, f"the text should be {text!r}, yours is {got_text!r}.", details, ""
    if got_whole and not whole:
        why = (
            "the chunked body was cut (httpx raised RemoteProtocolError while reading it)"
            if case.cut_by_http
            else "the stream stopped inside a line or an event: a strict parser raises IncompleteStream "
            "when such a body ends (from close(), or from iter_sse at the end of the body)"
        )
        return Kind.MISSING_ERROR, f"{why}, and your reader says it arrived whole.", details, "none raised"
    return (
        Kind.WRONG_ERROR,
        "the stream ended cleanly after a blank line, and your reader says it was cut.",
        details,
        "unexpected",
    )
