"""Exercise 01: a JSON Lines reader (chunks are not messages, in another format).

The reference :class:`JsonLines` gives one JSON value per LF-terminated line;
the inputs break one stated rule each when the reads cut them; the check
compares the learner's reader with it read by read and measures its growth.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ...decoding import Utf8Decoder
from ...events import EventAssembler
from ...layered import LayeredSSEParser
from ...lines import LineSplitter
from ...parser import SSEParser
from ..checking import (
    NotYours,
    StreamCheck,
    Trace,
    exercise,
    long_line_growth,
    regrouped,
    rules,
)
from ..checking.inputs import task_fixtures
from ..checking.layers import value_trace
from .ex05_limits_and_failures import Batches, JsonValues, Pipeline, TailLines

# --- the inputs, and the reference --------------------------------------------


#: name -> (why it matters, the stream): each breaks one rule of the task when the reads cut it.
JSON_LINES_STREAMS: dict[str, tuple[str, bytes]] = {
    "tokens": (
        "Characters of two, three and four bytes: a read may end inside any of them.",
        '{"token": "caf\u00e9"}\n{"token": " \u20ac5"}\n{"token": " \U0001f600"}\n'.encode(),
    ),
    "several-per-read": ("Read whole, one chunk completes four values.", b'1\n2\n[3, 4]\n"five"\n'),
    "blank-lines": ("Blank lines carry no value.", b'\n{"a": 1}\n\n  \n{"b": [true, null]}\n'),
    "no-final-lf": ("The last line may end without LF: close() gives its value.", b'{"done": false}\n{"done": true}'),
    "crlf": ("A CR before the LF is JSON whitespace.", '{"x": "\u00e9"}\r\n{"y": 2}\r\n'.encode()),
    "blank-tail": ("What is left at the end may be blank: no value.", b'"last"\n  '),
    "escaped-lf": ("An LF inside a JSON string is written \\n: it ends no line.", b'{"text": "two\\nlines"}\n7\n'),
    "other-line-ends": (
        "Only LF ends a line: U+2028, U+2029 and U+0085 may stand raw inside a JSON string.",
        '{"t": "a\u2028b"}\n{"t": "c\u2029d\u0085e"}\n'.encode(),
    ),
    "lone-cr": ("A CR without LF ends no line: here it is JSON whitespace.", b'[1,\r2]\n"x"\r\n'),
    "numbers": ("Signs, exponents and nested values.", b'-1\n2.5e-3\n{"a": [0, {"b": -0.0}]}\n'),
    "tab-blank": ("A line of tabs and spaces is blank too.", b"\t \n1\n\t\n"),
    "long-value": ("One value spread over many reads.", b'{"text": "' + b"x" * 40 + b'"}\n'),
}


class JsonLines:
    """bytes -> JSON values, one per LF-terminated line; the last line may lack its LF."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []  # the unfinished line's bytes

    def feed(self, chunk: bytes) -> list[Any]:
        *complete, rest = chunk.split(b"\n")
        if not complete:
            self.pieces.append(rest)
            return []
        lines = [b"".join([*self.pieces, complete[0]]), *complete[1:]]
        self.pieces = [rest]
        return [json.loads(line) for line in lines if line.strip()]

    def close(self) -> list[Any]:
        tail, self.pieces = b"".join(self.pieces), []
        return [json.loads(tail)] if tail.strip() else []


# --- the check ----------------------------------------------------------------


@regrouped
def json_lines_oracle(chunks: list[bytes], profile: str, options: str) -> Trace:
    return value_trace(JsonLines, chunks)


JSON_LINES = StreamCheck(
    "your JSON Lines reader",
    rules(
        ("several", "feed returns every value its chunk completes: none, one or several"),
        ("at-once", "a value comes out of the feed whose chunk brings its LF, not later"),
        ("kept", "the unfinished line is kept for the next feed"),
        ("bytes-kept", "a line is decoded only once it is complete: a chunk may end inside a character"),
        ("blank", "blank lines carry no value"),
        ("lf-only", "only LF ends a line: a lone CR, U+2028 and the like end none"),
        ("last-line", "close(): what is left after the last LF, if not blank, is one last value"),
        ("blank-tail", "close(): a blank rest gives nothing"),
    ),
    lambda: task_fixtures("json-lines", JSON_LINES_STREAMS),
    lambda make, _profile, _options: make(),
    json_lines_oracle,
    value_trace,
    profiles=("",),
    noun="value",
    not_yours=NotYours(
        "write the reader yourself, on bytes: not on the package's parser or its layers, nor on the course's "
        "own reader or stages (not subclassed, held or called)",
        classes=(SSEParser, LayeredSSEParser, Utf8Decoder, LineSplitter, EventAssembler, JsonLines)
        + (Pipeline, TailLines, JsonValues, Batches),
    ),
)


@exercise("your JSON Lines reader")
def check_json_lines(factory: Callable[[], Any]) -> str:
    """Exercise 01: ``factory()`` returns a reader with ``feed(bytes) -> list`` and ``close() -> list``."""
    return f"{JSON_LINES.verify(factory)}, {json_lines_growth(factory)}"


def json_lines_growth(factory: Callable[[], Any]) -> str:
    """Exercise 01's growth: one long JSON string on one line, in small reads, at n and 4n bytes."""
    line = lambda size: b'"' + b"x" * (size - 3) + b'"\n'  # noqa: E731
    hint = (
        "Keep the unfinished line as pieces (a list) or in a bytearray, and search only the new chunk for an "
        "LF (what you hold has none): held + chunk copies, and a search of what is held reads, everything "
        "held on every read."
    )
    return long_line_growth(JSON_LINES.what, factory, JsonLines, line, 512 * 1024, hint)
