"""The httpx edge: a streaming httpx response into ``iter_events`` / ``aiter_events``.

Needs httpx (``pip install 'sse-course[httpx]'``); the parser modules do not.

httpx is the HTTP client this edge is written for (the reconnecting client and
the classroom's tools use it too); the parser modules never import it. It stays thin on
purpose: httpx's own ``client.stream(...)`` opens the response, its
``iter_bytes()`` / ``aiter_bytes()`` yields the body's chunks as they were read,
with the content encoding (gzip, deflate) already undone: that is the HTTP
layer's job. No text decoding, no line splitting: those are the parser's job,
and the package's parser does the rest. (The reconnecting client undoes gzip
and deflate itself, with :class:`Inflater`, so that a corrupt byte loses nothing
decoded before it.) (``iter_raw()`` would hand the parser compressed bytes:
``DecodeError: invalid UTF-8 at byte 1: b'\\x8b'`` on gzip.)::

    with httpx.Client() as client, connect_sse(client, "GET", url) as source:
        for event in source.iter_sse():
            ...

    async with httpx.AsyncClient() as client, aconnect_sse(client, "GET", url) as source:
        async for event in source.aiter_sse():
            ...

``connect_sse`` is ``client.stream(...)`` with :func:`sse_headers` added to the
request's headers; with a stream of your own, ``iter_sse(response)`` does the rest.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any, Literal, Protocol, overload

try:
    import httpx
except ModuleNotFoundError as missing:  # say which extra brings it
    if missing.name != "httpx":
        raise
    raise ModuleNotFoundError(
        "sse_course's httpx edge (iter_sse, connect_sse, the reconnecting client) needs httpx: "
        "pip install 'sse-course[httpx]'",
        name="httpx",
    ) from missing

from .errors import DEFAULT_MAX_EVENT_CHARS, DEFAULT_MAX_LINE_CHARS
from .events import Comment, Event
from .parser import aiter_events, iter_events
from .profiles import DEFAULT_PROFILE


class NotAnEventStream(ValueError):
    """The response is not a 200 ``text/event-stream``; the standard's client
    fails the connection in that case rather than parse it."""


#: The headers every event-stream request carries (a browser's ``EventSource`` sends both).
SSE_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}


def sse_headers(last_event_id: str = "") -> dict[str, str | bytes]:
    """Request headers for an event stream; a reconnecting client sends its ``last_event_id``.

    The ID goes as browsers send it: UTF-8, without the spaces and tabs at its
    ends (a header value cannot begin or end with them), so the server receives
    ``x`` for the ID ``" x "``.
    """
    headers: dict[str, str | bytes] = {**SSE_HEADERS}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id.strip(" \t").encode("utf-8")
    return headers


def media_type(response: httpx.Response) -> str:
    """The response's media type, lower-cased, without parameters (``; charset=utf-8``)."""
    content_type: str = response.headers.get("content-type", "")
    return content_type.split(";")[0].strip().lower()


def check_event_stream(response: httpx.Response) -> None:
    """Refuse a response that is not a 200 with media type ``text/event-stream``."""
    kind = media_type(response)
    if response.status_code != 200 or kind != "text/event-stream":
        got = f"{response.status_code} {kind or 'no content type'}"
        raise NotAnEventStream(f"expected 200 text/event-stream from {response.url}, got {got}")


@overload
def iter_sse(
    response: httpx.Response,
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: Literal[False] = False,
) -> Iterator[Event]: ...


@overload
def iter_sse(
    response: httpx.Response,
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool,
) -> Iterator[Event | Comment]: ...


def iter_sse(
    response: httpx.Response,
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool = False,
) -> Iterator[Event | Comment]:
    """The events of a streaming response: ``response.iter_bytes()`` (decoded) into
    ``iter_events``, with its options; refused unless a 200 ``text/event-stream``."""
    check_event_stream(response)
    return iter_events(
        response.iter_bytes(),
        profile=profile,
        max_line_chars=max_line_chars,
        max_event_chars=max_event_chars,
        last_event_id=last_event_id,
        comments=comments,
    )


@overload
def aiter_sse(
    response: httpx.Response,
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: Literal[False] = False,
) -> AsyncIterator[Event]: ...


@overload
def aiter_sse(
    response: httpx.Response,
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool,
) -> AsyncIterator[Event | Comment]: ...


def aiter_sse(
    response: httpx.Response,
    profile: str = DEFAULT_PROFILE,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
    last_event_id: str = "",
    comments: bool = False,
) -> AsyncIterator[Event | Comment]:
    """Async twin of :func:`iter_sse`: ``response.aiter_bytes()`` into ``aiter_events``."""
    check_event_stream(response)
    return aiter_events(
        response.aiter_bytes(),
        profile=profile,
        max_line_chars=max_line_chars,
        max_event_chars=max_event_chars,
        last_event_id=last_event_id,
        comments=comments,
    )


class EventSource:
    """One open event-stream response, as :func:`connect_sse` / :func:`aconnect_sse`
    yield it: ``iter_sse()`` / ``aiter_sse()`` read it (with :func:`iter_sse`'s options)."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response

    @overload
    def iter_sse(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: Literal[False] = False,
    ) -> Iterator[Event]: ...

    @overload
    def iter_sse(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool,
    ) -> Iterator[Event | Comment]: ...

    def iter_sse(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool = False,
    ) -> Iterator[Event | Comment]:
        """The response's events (:func:`iter_sse`)."""
        return iter_sse(
            self.response,
            profile=profile,
            max_line_chars=max_line_chars,
            max_event_chars=max_event_chars,
            last_event_id=last_event_id,
            comments=comments,
        )

    @overload
    def aiter_sse(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: Literal[False] = False,
    ) -> AsyncIterator[Event]: ...

    @overload
    def aiter_sse(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool,
    ) -> AsyncIterator[Event | Comment]: ...

    def aiter_sse(
        self,
        profile: str = DEFAULT_PROFILE,
        *,
        max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
        max_event_chars: int = DEFAULT_MAX_EVENT_CHARS,
        last_event_id: str = "",
        comments: bool = False,
    ) -> AsyncIterator[Event | Comment]:
        """The response's events, async (:func:`aiter_sse`)."""
        return aiter_sse(
            self.response,
            profile=profile,
            max_line_chars=max_line_chars,
            max_event_chars=max_event_chars,
            last_event_id=last_event_id,
            comments=comments,
        )


def with_sse_headers(options: dict[str, Any]) -> dict[str, Any]:
    """``client.stream``'s keyword arguments, the caller's headers added over :data:`SSE_HEADERS`."""
    headers = httpx.Headers(SSE_HEADERS)
    headers.update(options.pop("headers", None) or {})
    return {**options, "headers": headers}


@contextmanager
def connect_sse(client: httpx.Client, method: str, url: str | httpx.URL, **kwargs: Any) -> Iterator[EventSource]:
    """``client.stream(method, url, **kwargs)`` with the event-stream request headers
    (the caller's ``headers=`` added over them), as an :class:`EventSource`."""
    with client.stream(method, url, **with_sse_headers(kwargs)) as response:
        yield EventSource(response)


@asynccontextmanager
async def aconnect_sse(
    client: httpx.AsyncClient, method: str, url: str | httpx.URL, **kwargs: Any
) -> AsyncIterator[EventSource]:
    """Async twin of :func:`connect_sse`."""
    async with client.stream(method, url, **with_sse_headers(kwargs)) as response:
        yield EventSource(response)


#: The content codings the reconnecting client asks for and undoes itself (see :class:`Inflater`).
ACCEPT_ENCODING = "gzip, deflate"


class Inflater:
    """Undo gzip or deflate read by read, keeping what decoded before a corrupt byte.

    httpx's own decoding raises on a corrupt byte and loses the rest of that
    read, a complete event included; this one hands it over first. ``deflate``
    is tried with its zlib wrapper, then raw, as some servers send it (as httpx does).
    """

    def __init__(self, coding: str) -> None:
        self.zlib = zlib.decompressobj(16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS)
        self.first = coding == "deflate"

    def decode(self, raw: bytes) -> tuple[bytes, str | None]:
        """The bytes ``raw`` decodes to, and why decoding failed (``None``: it did not)."""
        first, self.first = self.first, False
        before = self.zlib.copy()
        try:
            return self.zlib.decompress(raw), None
        except zlib.error as err:
            if first:  # deflate without its zlib wrapper, perhaps
                bare = zlib.decompressobj(-zlib.MAX_WBITS)
                with suppress(zlib.error):
                    decoded = bare.decompress(raw)
                    self.zlib = bare
                    return decoded, None
            return salvage(before, raw), f"content could not be decoded: {err}"

    def flush(self) -> bytes:
        return self.zlib.flush()


class Decompressor(Protocol):
    """What :func:`salvage` needs of a ``zlib.decompressobj()``."""

    def decompress(self, data: bytes, /) -> bytes: ...


def salvage(inflater: Decompressor, raw: bytes) -> bytes:
    """What ``raw`` decodes to up to its first corrupt byte (byte by byte: only after a failure)."""
    decoded = []
    with suppress(zlib.error):
        for at in range(len(raw)):
            decoded.append(inflater.decompress(raw[at : at + 1]))
    return b"".join(decoded)
