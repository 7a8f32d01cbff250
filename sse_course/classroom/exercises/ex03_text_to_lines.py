"""Exercise 03: lines cut on bytes, checked against the package's line splitter reading bytes as Latin-1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import layered, lines, parser
from ...lines import LineSplitter
from ..checking import (
    NotYours,
    StreamCheck,
    Trace,
    exercise,
    long_line_growth,
    many_lines_growth,
    regrouped,
    rules,
    trace,
)
from ..checking.compare import no_state
from ..checking.inputs import all_fixtures, without_option
from ..checking.layers import strict_in

# --- lines on bytes -----------------------------------------------------------


class LatinLines:
    """The package's line splitter on bytes: CR and LF are ASCII, so reading
    each byte as one Latin-1 character splits bytes exactly as it splits text."""

    def __init__(self, strict: bool) -> None:
        self.splitter = LineSplitter(strict=strict)

    def feed(self, chunk: bytes) -> list[bytes]:
        return [line.encode("latin-1") for line in self.splitter.feed(chunk.decode("latin-1"))]

    def close(self) -> list[bytes]:
        return [line.encode("latin-1") for line in self.splitter.close()]


def line_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=bytes, state=no_state)


@regrouped
def line_oracle(chunks: list[bytes], profile: str, options: str) -> Trace:
    return line_trace(lambda: LatinLines(strict_in(profile)), chunks)


#: The package's line splitting, which a "your own line splitter" task may not reach.
PACKAGE_LINES = (LineSplitter, lines, layered, parser)


BYTE_LINES = StreamCheck(
    "your byte line splitter",
    rules(
        ("lf", "an LF alone ends a line"),
        ("cr", "a CR alone ends a line"),
        ("crlf", "CRLF is one line end"),
        ("cr-at-once", "a CR that ends a chunk ends its line at once"),
        ("lf-after-cr-skipped", "one LF that starts the next chunk after a CR is skipped"),
        ("empty-chunk", "an empty chunk changes nothing (the LF after a CR is still skipped)"),
        ("unfinished-kept", "the unfinished line is kept for the next feed"),
        ("close-strict", "close(): an unfinished line raises IncompleteStream when strict"),
        ("close-browser", "close(): an unfinished line is dropped otherwise"),
        ("bytes-only", "lines are bytes, never decoded (invalid UTF-8 passes through)"),
    ),
    lambda: all_fixtures(without_option("max_line_chars"), ("line_ends",)),
    lambda make, profile, _options: make(strict=strict_in(profile)),
    line_oracle,
    line_trace,
    noun="line",
    empty=[],
    not_yours=NotYours(
        "write the line splitter yourself, on bytes with bytes.find: not the package's LineSplitter "
        "(not subclassed, held or called) nor its parsers",
        classes=(LineSplitter, LatinLines),
        code=PACKAGE_LINES,
    ),
)


@exercise("your byte line splitter")
def check_byte_lines(factory: Callable[..., Any]) -> str:
    """Exercise 03: ``factory(strict=...)`` returns a splitter with ``feed(bytes)
    -> list[bytes]`` and ``close() -> list[bytes]``."""
    return f"{BYTE_LINES.verify(factory)}, {byte_lines_growth(factory)}"


def byte_lines_growth(factory: Callable[..., Any]) -> str:
    """Exercise 03's growth: one long line in small reads, at n and 4n bytes; and many short lines in one read."""
    make, reference = (lambda: factory(strict=True)), (lambda: LatinLines(True))
    grows = long_line_growth(BYTE_LINES.what, make, reference, data_line, 128 * 1024, HELD_LINE_HINT)
    many_lines_growth(BYTE_LINES.what, make, reference, b"data: x\n", MANY_LINES_BYTES)  # second: slower to refuse
    return grows


#: The size of the read that holds many lines (or blocks), in exercises 03's and 09's growth checks.
MANY_LINES_BYTES = 256 * 1024


#: Where a splitter's or cutter's work usually stops being linear.
HELD_LINE_HINT = (
    "Keep the unfinished line as pieces (a list) or in a bytearray, and search only the new chunk for a "
    "line end: held + chunk copies everything held on every read, and searching what is held from its "
    "start reads it all again."
)


def data_line(size: int, end: bytes = b"\n") -> bytes:
    """One data line of ``size`` bytes in all, then ``end``."""
    return b"data: " + b"x" * (size - 6) + end
