"""sse_course: read Server-Sent Events exactly, whatever the chunking.

    bytes -> text (decoding) -> lines (lines) -> events (events) -> payloads (payloads)

``SSEParser`` is the parser to use; ``LayeredSSEParser`` is the same parser with
every step visible, as the lessons build it (the two are proven equal).
The parser modules never import the classroom tools in ``sse_course.classroom``.
"""

from .errors import (
    DecodeError,
    EventTooLarge,
    IncompleteStream,
    LineTooLong,
    ParseLimitError,
    ParserClosed,
    SSEError,
)
from .events import Event
from .layered import LayeredSSEParser
from .parser import SSEParser, aiter_events, iter_events
from .payloads import PayloadError

__version__ = "0.1.0"

__all__ = [
    "DecodeError",
    "Event",
    "EventTooLarge",
    "IncompleteStream",
    "LayeredSSEParser",
    "LineTooLong",
    "ParseLimitError",
    "ParserClosed",
    "PayloadError",
    "SSEError",
    "SSEParser",
    "aiter_events",
    "iter_events",
]
