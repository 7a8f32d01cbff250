"""sse_course: read Server-Sent Events exactly, whatever the chunking.

    bytes -> text (decoding) -> lines (lines) -> events (events) -> payloads (payloads)

``SSEParser`` is the parser to use; ``LayeredSSEParser`` is the same parser with
every step visible, as the lessons build it (the two are proven equal).
The parser modules never import the classroom tools in ``sse_course.classroom``.

The httpx edge (``connect_sse``, ``iter_sse``, ...) and the reconnecting client
(``EventSourceClient``, ...) are imported on first use, so ``import sse_course``
needs no httpx; they need ``pip install 'sse-course[httpx]'``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .errors import (
    DecodeError,
    EventTooLarge,
    IncompleteStream,
    LineTooLong,
    ParseLimitError,
    ParserClosed,
    SSEError,
)
from .events import Comment, Event
from .layered import LayeredSSEParser
from .parser import SSEParser, aiter_events, iter_events
from .payloads import JSONPayloads, PayloadError

if TYPE_CHECKING:  # what the lazy names below are, for type checkers
    from .client import (
        AsyncEventSourceClient,
        Backoff,
        ConnectionFailed,
        EventSourceClient,
        Reconnecting,
        RequestFailed,
    )
    from .httpx_adapter import (
        EventSource,
        NotAnEventStream,
        aconnect_sse,
        aiter_sse,
        connect_sse,
        iter_sse,
        sse_headers,
    )

__version__ = "0.1.0"

#: The names that need httpx, and the module each comes from (imported on first use).
LAZY = {
    **dict.fromkeys(
        ["EventSource", "NotAnEventStream", "aconnect_sse", "aiter_sse", "connect_sse", "iter_sse", "sse_headers"],
        "httpx_adapter",
    ),
    **dict.fromkeys(
        [
            "AsyncEventSourceClient",
            "Backoff",
            "ConnectionFailed",
            "EventSourceClient",
            "Reconnecting",
            "RequestFailed",
        ],
        "client",
    ),
}

__all__ = [
    "AsyncEventSourceClient",
    "Backoff",
    "Comment",
    "ConnectionFailed",
    "DecodeError",
    "Event",
    "EventSource",
    "EventSourceClient",
    "EventTooLarge",
    "IncompleteStream",
    "JSONPayloads",
    "LayeredSSEParser",
    "LineTooLong",
    "NotAnEventStream",
    "ParseLimitError",
    "ParserClosed",
    "PayloadError",
    "Reconnecting",
    "RequestFailed",
    "SSEError",
    "SSEParser",
    "aconnect_sse",
    "aiter_events",
    "aiter_sse",
    "connect_sse",
    "iter_events",
    "iter_sse",
    "sse_headers",
]


def __getattr__(name: str) -> Any:
    """Import an httpx name on first use (PEP 562), from the module that defines it."""
    if name not in LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import_module(".httpx_adapter", __name__)  # first: without httpx, its error names the extra
    value = getattr(import_module(f".{LAZY[name]}", __name__), name)
    globals()[name] = value  # the next lookup finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *LAZY})
