"""The httpx edge: a streaming httpx response into ``iter_events`` / ``aiter_events``.

httpx is the HTTP client this edge is written for, and the only module of the
package that imports it; the parser modules never do. It stays thin on
purpose: httpx's own ``client.stream(...)`` opens the response, its
``iter_raw()`` / ``aiter_raw()`` yields the body's chunks exactly as they were
read (no text decoding, no line splitting: those are the parser's job), and the
package's parser does the rest::

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


def check_event_stream(response: httpx.Response) -> None:
    """Refuse a response that is not a 200 with media type ``text/event-stream``."""
    media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if response.status_code != 200 or media_type != "text/event-stream":
        got = f"{response.status_code} {media_type or 'no content type'}"
        raise NotAnEventStream(f"expected 200 text/event-stream from {response.url}, got {got}")


def iter_sse(response: httpx.Response, **options: Any) -> Iterator[Event]:
    """The events of a streaming response: ``response.iter_raw()`` into ``iter_events``."""
    check_event_stream(response)
    return iter_events(response.iter_raw(), **options)


def aiter_sse(response: httpx.Response, **options: Any) -> AsyncIterator[Event]:
    """Async twin of :func:`iter_sse`: ``response.aiter_raw()`` into ``aiter_events``."""
    check_event_stream(response)
    return aiter_events(response.aiter_raw(), **options)
