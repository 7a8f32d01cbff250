"""The course server's plan: what it answers each request, with no I/O at all.

One plan, two forms that carry it out (``docs/architecture.md``): the loopback
server (:mod:`sse_course.classroom.server`: a thread, a socket, real timing)
and the in-process transport (:mod:`sse_course.classroom.inprocess`: no thread,
no socket, for the browser). Both ask :meth:`ServerPlan.answer` what to send, so
the writes, the drops, the IDs a request resumes after, the 204 and the way a
body ends (the connection closes, or a chunked body is finished or cut) are
decided once, here. The forms only decide how the bytes travel.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..parser import SSEParser
from .harness import chunks_of

#: Response status lines the server may send.
REASONS = {200: "OK", 204: "No Content", 307: "Temporary Redirect", 404: "Not Found", 405: "Method Not Allowed"}
EVENT_STREAM = "text/event-stream; charset=utf-8"
#: Content codings the server can apply (when the request's Accept-Encoding asks for it).
ENCODINGS = {"gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}
#: Every answer ends its connection: a body without Content-Length and without
#: chunked coding is delimited by the close.
CLOSE = ("Connection", "close")


def planned_writes(body: bytes, cuts: Iterable[int] = (), drop_at: int | None = None) -> list[bytes]:
    """The chunks the server writes: ``body`` (cut short at ``drop_at``) cut at ``cuts``."""
    if drop_at is not None:
        if not 0 <= drop_at <= len(body):
            raise ValueError(f"drop_at={drop_at} outside 0..{len(body)}")
        body = body[:drop_at]
    cuts = sorted(set(cuts))
    if any(not 0 < cut < len(body) for cut in cuts):
        raise ValueError(f"cuts {cuts} outside 1..{len(body) - 1}")
    return chunks_of(body, cuts) if body else []


def writes_between(body: bytes, cuts: Iterable[int], start: int, end: int) -> list[bytes]:
    """The chunks of ``body[start:end]``, cut where ``cuts`` (offsets into ``body``) fall inside."""
    inner = [cut - start for cut in sorted(set(cuts)) if start < cut < end]
    return chunks_of(body[start:end], inner) if end > start else []


def resume_points(body: bytes) -> dict[str, int]:
    """For each event ID in ``body``: the offset just after the block that first committed it.

    A server resumes there when a client sends that ID as ``Last-Event-ID``.
    The parser finds the IDs (line by line, so it costs one feed per line).
    """
    parser = SSEParser("browser")
    points: dict[str, int] = {}
    ends = [i + 1 for i, byte in enumerate(body) if byte in b"\r\n" and body[i : i + 2] != b"\r\n"]
    start = 0
    for end in [*ends, len(body)]:
        parser.feed(body[start:end])
        start = end
        if parser.last_event_id:
            points.setdefault(parser.last_event_id, end)
    return points


@dataclass(frozen=True)
class Request:
    """One request as the server saw it; ``at`` is ``time.monotonic()`` when its head arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass(frozen=True)
class Answer:
    """One response as planned.

    ``writes`` are the body's writes, content coding applied, in order.
    ``chunked``: sent with ``Transfer-Encoding: chunked``, one HTTP chunk per
    write. ``whole``: the body reaches its planned end (a chunked body then
    gets its last chunk); ``False`` is a drop: the connection just closes.
    ``hold``: after the writes, the connection stays open, silent.
    """

    status: int
    headers: tuple[tuple[str, str], ...]
    writes: tuple[bytes, ...] = ()
    chunked: bool = False
    whole: bool = True
    hold: bool = False

    @property
    def cut(self) -> bool:
        """A chunked body that ends without its last chunk: the HTTP client sees it cut."""
        return self.chunked and not self.whole


def empty(status: int, *headers: tuple[str, str]) -> Answer:
    """An answer with no body."""
    return Answer(status, (*headers, ("Content-Length", "0"), CLOSE))


class ServerPlan:
    """Serve ``body`` to every GET of ``/`` as ``text/event-stream``, in planned writes.

    ``cuts`` are byte offsets where one write ends and the next begins;
    ``pause`` is the delay in seconds between writes (the loopback server's;
    in process, nothing travels, so nothing waits); ``drop_at`` closes the
    connection after that many bytes of the body. ``requests`` records each
    request's headers (e.g. the ``Last-Event-ID`` a reconnecting client sent),
    ``log`` each :class:`Request` in full.

    Resuming: a request with a ``Last-Event-ID`` the body committed gets the
    body from just after that ID's block (an unknown ID gets it all).
    ``drops`` closes the n-th connection when it reaches ``drops[n]`` (an
    offset in ``body``); later connections run to the end. With
    ``end_with_204``, a request that would resume at the body's end is
    answered 204 ("no more: stop reconnecting").

    For the client's tests: ``status`` and ``content_type`` of the stream's
    response, ``methods`` allowed (405 for others), ``encoding`` ("gzip" or
    "deflate", applied when the request accepts it, flushed per write),
    ``hold`` (keep the connection open, silent, after the body), ``page``
    (HTML served at ``/page``, for a browser). ``/redirect`` answers 307 to ``/``;
    other paths 404. ``chunked`` sends the stream's body with the chunked
    transfer coding, one HTTP chunk per write, so that a drop is a cut body to
    the HTTP client rather than an ordinary end.
    """

    def __init__(
        self,
        body: bytes,
        *,
        cuts: Sequence[int] = (),
        pause: float = 0.0,
        drop_at: int | None = None,
        drops: Sequence[int] = (),
        end_with_204: bool = False,
        status: int = 200,
        content_type: str = EVENT_STREAM,
        methods: Sequence[str] = ("GET",),
        encoding: str | None = None,
        hold: bool = False,
        page: str | None = None,
        chunked: bool = False,
    ) -> None:
        if pause < 0:
            raise ValueError(f"pause must be >= 0 seconds, got {pause!r}")
        if encoding is not None and encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {sorted(ENCODINGS)}, got {encoding!r}")
        self.writes = planned_writes(body, cuts, drop_at)
        self.body = body
        self.cuts = sorted(set(cuts))
        self.drop_at = len(body) if drop_at is None else drop_at
        self.drops = list(drops)
        self.end_with_204 = end_with_204
        self.status = status
        self.content_type = content_type
        self.methods = tuple(methods)
        self.encoding = encoding
        self.hold = hold
        self.page = page
        self.chunked = chunked
        self.pause = pause
        self.requests: list[dict[str, str]] = []
        self.log: list[Request] = []
        self.streams_served = 0
        self._resume_points: dict[str, int] | None = None

    def describe(self) -> str:
        """The planned writes, with each cut drawn as ' | '."""
        return " | ".join(repr(chunk) for chunk in self.writes)

    def replan(self, drops: Sequence[int]) -> None:
        """Start counting connections anew with these drop points (one server, many cases)."""
        self.drops = list(drops)
        self.streams_served = 0
        self.requests.clear()
        self.log.clear()

    def resume_offset(self, last_event_id: str) -> int:
        """Where a request carrying ``last_event_id`` starts in the body (0 if unknown)."""
        if self._resume_points is None:
            self._resume_points = resume_points(self.body)
        return self._resume_points.get(last_event_id, 0) if last_event_id else 0

    def answer(self, method: str, path: str, headers: Mapping[str, str], body: bytes = b"") -> Answer:
        """What to send for one request (header names lower-cased); the request is recorded."""
        headers = dict(headers)
        self.log.append(Request(method, path, headers, body, time.monotonic()))
        if path == "/page" and self.page is not None:
            page = self.page.encode("utf-8")
            head = (("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(page))), CLOSE)
            return Answer(200, head, (page,))
        if path == "/redirect":
            return empty(307, ("Location", "/"))
        if path != "/":
            return empty(404)
        self.requests.append(headers)
        if method not in self.methods:
            return empty(405, ("Allow", ", ".join(self.methods)))
        return self._stream(headers)

    def _stream(self, headers: Mapping[str, str]) -> Answer:
        """The stream's answer: from the resume point to this connection's drop point."""
        start = self.resume_offset(headers.get("last-event-id", ""))
        if self.end_with_204 and start >= len(self.body):
            return empty(204)
        connection = self.streams_served
        self.streams_served += 1
        end = self.drops[connection] if connection < len(self.drops) else self.drop_at
        whole = end >= len(self.body)
        writes = writes_between(self.body, self.cuts, start, max(start, end))
        head = [("Content-Type", self.content_type), ("Cache-Control", "no-cache")]
        encoder = self._encoder(headers.get("accept-encoding", ""))
        if encoder is not None:
            head.append(("Content-Encoding", str(self.encoding)))
            writes = [encoder.compress(chunk) + encoder.flush(zlib.Z_SYNC_FLUSH) for chunk in writes]
            if whole:
                writes.append(encoder.flush())
        if self.chunked:
            head.append(("Transfer-Encoding", "chunked"))
        return Answer(self.status, (*head, CLOSE), tuple(writes), self.chunked, whole, self.hold)

    def _encoder(self, accept_encoding: str) -> Any:
        """A compressor for the configured coding, if the request accepts it."""
        accepted = {part.split(";")[0].strip().lower() for part in accept_encoding.split(",")}
        if self.encoding is None or self.encoding not in accepted:
            return None
        return zlib.compressobj(wbits=ENCODINGS[self.encoding])
