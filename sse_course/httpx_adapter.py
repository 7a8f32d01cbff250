"""The httpx edge: a streaming httpx response into ``iter_events`` / ``aiter_events``.

httpx is the HTTP client this edge is written for, and the only module of the
package that imports it; the parser modules never do. It stays thin on
purpose: httpx's own ``client.stream(...)`` opens the response, its
``iter_bytes()`` / ``aiter_bytes()`` yields the body's chunks as they were read,
with the content encoding (gzip, deflate) already undone: that is the HTTP
layer's job. No text decoding, no line splitting: those are the parser's job,
and the package's parser does the rest. (``iter_raw()`` would hand the parser
compressed bytes: ``DecodeError: invalid UTF-8 at byte 1: b'\\x8b'`` on gzip.)::

    with httpx.Client() as client, client.stream("GET", url, headers=sse_headers()) as response:
        for event in iter_sse(response):
            ...

    async with httpx.AsyncClient() as client, client.stream("GET", url, headers=sse_headers()) as response:
        async for event in aiter_sse(response):
            ...
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from .events import Event
from .parser import aiter_events, iter_events


class NotAnEventStream(ValueError):
    """The response is not a 200 ``text/event-stream``; the standard's client
    fails the connection in that case rather than parse it."""


def sse_headers(last_event_id: str = "") -> dict[str, str]:
    """Request headers for an event stream; a reconnecting client sends its ``last_event_id``."""
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    return headers


def media_type(response: httpx.Response) -> str:
    """The response's media type, lower-cased, without parameters (``; charset=utf-8``)."""
    return response.headers.get("content-type", "").split(";")[0].strip().lower()


def check_event_stream(response: httpx.Response) -> None:
    """Refuse a response that is not a 200 with media type ``text/event-stream``."""
    kind = media_type(response)
    if response.status_code != 200 or kind != "text/event-stream":
        got = f"{response.status_code} {kind or 'no content type'}"
        raise NotAnEventStream(f"expected 200 text/event-stream from {response.url}, got {got}")


def iter_sse(response: httpx.Response, **options: Any) -> Iterator[Event]:
    """The events of a streaming response: ``response.iter_bytes()`` (decoded) into ``iter_events``."""
    check_event_stream(response)
    return iter_events(response.iter_bytes(), **options)


def aiter_sse(response: httpx.Response, **options: Any) -> AsyncIterator[Event]:
    """Async twin of :func:`iter_sse`: ``response.aiter_bytes()`` into ``aiter_events``."""
    check_event_stream(response)
    return aiter_events(response.aiter_bytes(), **options)
