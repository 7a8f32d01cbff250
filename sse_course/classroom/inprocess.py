"""The course server with no thread and no socket: an httpx transport that carries out its plan.

In the browser (JupyterLite, Pyodide) a lesson can neither start a thread nor
open a socket, so the loopback server (:mod:`sse_course.classroom.server`)
cannot run there. :class:`InProcessServer` serves the same
:class:`~sse_course.classroom.plan.ServerPlan` (the writes, the drops, the IDs
a request resumes after, the 204, the ending) through an httpx transport,
sync (:class:`PlanTransport`) and async (:class:`AsyncPlanTransport`):

* each planned write is one chunk of the response body: nothing lies between
  the server and the client to merge or split them, and ``pause`` waits for
  nothing;
* a drop of a close-delimited body just ends it, as a closed connection does;
  a drop of a chunked body raises ``httpx.RemoteProtocolError`` after the
  writes that came, as httpx does when the connection closes before the last
  chunk.

:func:`course_server` picks the form this Python can run, so that a lesson's
cells read the same in JupyterLab and in the browser::

    with course_server(body, cuts=[7, 9]) as server, server.client() as client:
        with client.stream("GET", server.url) as response:
            ...

This module imports neither ``threading`` nor ``socket`` nor ``asyncio``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import httpx

from .plan import Answer, ServerPlan

if TYPE_CHECKING:
    from .server import SSEServer

#: The in-process server's address: the reserved ``.invalid`` name never
#: resolves, so a request that missed the transport fails instead of leaving the machine.
URL = "http://sse-course.invalid/"
#: What httpx says when a chunked body ends before its last chunk (h11's words).
INCOMPLETE_CHUNKED = "peer closed connection without sending complete message body (incomplete chunked read)"
#: Seconds an httpx client waits, as the loopback server's clients do (nothing here ever waits).
TIMEOUT = 5.0


def in_browser() -> bool:
    """True where there are no threads and no sockets: Pyodide (``sys.platform == "emscripten"``).

    ``SSE_COURSE_IN_PROCESS=1`` says the same on any Python, so the browser's
    form can be run where the loopback one also can, and the two compared.
    """
    return sys.platform == "emscripten" or os.environ.get("SSE_COURSE_IN_PROCESS") == "1"


def course_server(body: bytes, **options: Any) -> SSEServer | InProcessServer:
    """The course server for ``body`` (options: :class:`~sse_course.classroom.plan.ServerPlan`'s),
    in the form this Python can run: in process in the browser, else on loopback."""
    if in_browser():
        return InProcessServer(body, **options)
    from .server import SSEServer  # threads and sockets: imported only where they exist

    return SSEServer(body, **options)


class InProcessServer(ServerPlan):
    """The plan served through an httpx transport: use :meth:`client` (or
    :meth:`async_client`) and :attr:`url`. ``with`` works, and starts nothing."""

    url = URL

    def __init__(self, body: bytes, **options: Any) -> None:
        if options.get("hold"):
            raise ValueError("hold keeps a silent connection open: only the loopback server has connections")
        super().__init__(body, **options)

    def __enter__(self) -> InProcessServer:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def client(self, **options: Any) -> httpx.Client:
        """An httpx client whose requests this plan answers (``timeout`` as the loopback server's clients)."""
        return httpx.Client(**{"timeout": TIMEOUT, **options, "transport": PlanTransport(self)})

    def async_client(self, **options: Any) -> httpx.AsyncClient:
        """The async twin of :meth:`client`."""
        return httpx.AsyncClient(**{"timeout": TIMEOUT, **options, "transport": AsyncPlanTransport(self)})


def request_headers(request: httpx.Request) -> dict[str, str]:
    """The request's headers as the loopback server reads them: names lower-cased, values as UTF-8."""
    return {name.decode("latin-1").lower(): value.decode("utf-8", "replace") for name, value in request.headers.raw}


class PlannedBody(httpx.SyncByteStream, httpx.AsyncByteStream):
    """The body of one answer: its writes, one chunk each; a cut chunked body then raises."""

    def __init__(self, answer: Answer, request: httpx.Request) -> None:
        self.answer = answer
        self.request = request

    def __iter__(self) -> Iterator[bytes]:
        yield from self.answer.writes
        self._end()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for write in self.answer.writes:
            yield write
        self._end()

    def _end(self) -> None:
        if self.answer.cut:
            raise httpx.RemoteProtocolError(INCOMPLETE_CHUNKED, request=self.request)


def response(answer: Answer, request: httpx.Request) -> httpx.Response:
    """The httpx response that carries ``answer``."""
    return httpx.Response(
        answer.status,
        headers=list(answer.headers),
        stream=PlannedBody(answer, request),
        request=request,
        extensions={"http_version": b"HTTP/1.1"},
    )


class PlanTransport(httpx.BaseTransport):
    """A sync httpx transport: each request is answered by ``plan``, in this thread."""

    def __init__(self, plan: ServerPlan) -> None:
        self.plan = plan

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        answer = self.plan.answer(request.method, request.url.path, request_headers(request), body)
        return response(answer, request)


class AsyncPlanTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`PlanTransport`."""

    def __init__(self, plan: ServerPlan) -> None:
        self.plan = plan

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        answer = self.plan.answer(request.method, request.url.path, request_headers(request), body)
        return response(answer, request)
