"""Exercise 09: cut a stream's bytes into event blocks, before any decoding.

A *block* is the bytes of one event block: its lines, then the blank line that
ends it, every line end included (CR, LF or CRLF). The reference is the course's
:class:`~sse_course.classroom.blocks.BlockCutter` (lesson 09's); the check compares
a learner's cutter with it feed by feed, on every fixture under every partition
strategy and on inputs chosen to separate the rules, and measures its growth.
"""

from __future__ import annotations

import codecs
import functools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ... import __version__, decoding, layered, lines, parser
from ... import events as package_events
from ...decoding import Utf8Decoder
from ...events import EventAssembler
from ...layered import LayeredSSEParser
from ...lines import LineSplitter
from ...parser import SSEParser
from .. import blocks
from ..checking import (
    NotYours,
    StreamCheck,
    Trace,
    check_partitions,
    exercise,
    long_line_growth,
    many_lines_growth,
    rules,
    trace,
)
from ..checking.compare import no_state
from ..checking.inputs import GENERATED_COUNT, generated_fixtures
from ..fixtures import Fixture, load_fixtures
from ..harness import (
    STRATEGIES,
    Partition,
    chunks_of,
)
from .ex03_text_to_lines import HELD_LINE_HINT, MANY_LINES_BYTES, data_line

# --- the inputs ---------------------------------------------------------------


#: Chunkings chosen to separate the task's rules, each run as given and under
#: every partition strategy of the harness.
RULE_CASES: dict[str, tuple[str, list[bytes]]] = {
    "cr-blank-then-lf-after-empty-reads": (
        "A CR ends the blank line at once; the LF reads later belongs to it and is in no block.",
        [b"data: a\r", b"\r", b"", b"", b"\ndata: b\r\n\r\n"],
    ),
    "crlf-split-inside-a-block": (
        "An LF after a CR that ended a field line stays in the block.",
        [b"data: a\r", b"", b"\ndata: b\r", b"\n\r\n"],
    ),
    "crlf-split-at-the-end-of-a-block": (
        "The blank line's CR completes the block; its LF, one read later, is dropped.",
        [b"data: a\r\n\r", b"\n", b"data: b\r\n\r", b"", b"\n"],
    ),
    "blank-lines-of-every-kind": (
        "\\r\\r, \\n\\r\\n and \\r\\n\\r\\n each end a block.",
        [b"data: a\r\rdata: b\n\r\ndata: c\r\n\r\n"],
    ),
    "invalid-utf8-passes-through": (
        "Bytes that are not UTF-8 are cut like any others.",
        [b"data: \xff\xfe\n\ndata: caf\xc3", b"\xa9 \xed\xa0\x80\r\r"],
    ),
    "starts-with-blank-lines": (
        "A blank line on its own is a block.",
        [b"\n\r\n\r", b"\ndata: a\n\n"],
    ),
    "no-final-blank-line": (
        "close() returns the bytes after the last block.",
        [b"data: a\n\nid: 1\r", b"\ndata: b"],
    ),
}


def cuts_of(chunks: list[bytes]) -> Partition:
    """The partition that gives back ``chunks`` (an empty chunk repeats a cut)."""
    ends, total = [], 0
    for chunk in chunks[:-1]:
        total += len(chunk)
        ends.append(total)
    return tuple(ends)


def rule_fixtures() -> list[tuple[Fixture, Partition]]:
    """Each rule case as a fixture (no expectation: the reference cutter gives it), with its own split."""
    found = []
    for name, (about, chunks) in RULE_CASES.items():
        raw = b"".join(chunks)
        found.append((Fixture("rules", name, about, raw, (), {}, {}, tuple(STRATEGIES), __version__), cuts_of(chunks)))
    return found


def block_fixtures() -> list[Fixture]:
    """The rule cases first (they explain a failure best), then every fixture's bytes,
    each to be run under every partition strategy of the harness."""
    every = tuple(STRATEGIES)
    return [fixture for fixture, _ in rule_fixtures()] + [
        replace(fixture, checked_under=every) for fixture in load_fixtures()
    ]


# --- the check ----------------------------------------------------------------


class Rest(bytes):
    """What a cutter's close() returns: the bytes after the last block, shown as such."""

    def __repr__(self) -> str:
        return f"rest {bytes.__repr__(self)}"


class CloseAsRest:
    """A block cutter as the engine observes it: close()'s bytes are its one item."""

    def __init__(self, cutter: Any) -> None:
        self.cutter = cutter

    def feed(self, chunk: bytes) -> list[Any]:
        return self.cutter.feed(chunk)

    def close(self) -> list[Rest]:
        return [Rest(self.cutter.close())]


def as_block(item: Any) -> Any:
    return item if isinstance(item, Rest) else bytes(item) if isinstance(item, (bytearray, memoryview)) else item


def block_trace(factory: Callable[[], Any], chunks: list) -> Trace:
    return trace(factory, chunks, normalise=as_block, state=no_state)


@functools.lru_cache(maxsize=1 << 16)
def block_oracle(raw: bytes, cuts: Partition, profile: str, options: str) -> Trace:
    return block_trace(lambda: CloseAsRest(blocks.BlockCutter()), chunks_of(raw, cuts))


def block_partitions(fixture: Fixture) -> list[Partition]:
    """A rule case's own split first, then every strategy of the harness."""
    own = [cuts for case, cuts in rule_fixtures() if case.id == fixture.id]
    return own + check_partitions(fixture)


BLOCK_CUTTER = StreamCheck(
    "your block cutter",
    rules(
        (
            "cr-at-once",
            "a block is complete as soon as the line end of its blank line arrives: a CR ends a line at once",
        ),
        ("lf-after-cr-dropped", "the LF right after a blank line's CR is in no block, even in a later chunk"),
        ("lf-after-empty-chunks", "that LF is still the CR's after any number of empty chunks"),
        ("every-blank-line", "CR, LF and CRLF each end a line: \\r\\r, \\n\\r\\n and \\r\\n\\r\\n end a block too"),
        (
            "every-byte-once",
            "every byte of the stream is in one block or in close()'s rest, once (but those dropped LFs)",
        ),
        ("bytes-only", "bytes only, never decoded: invalid UTF-8 passes through"),
        ("close-rest", "close() returns the bytes after the last block"),
    ),
    lambda: [*block_fixtures(), *generated_fixtures()],
    lambda make, _profile, _options: CloseAsRest(make()),
    block_oracle,
    block_trace,
    profiles=("",),
    noun="block",
    partitions=block_partitions,
    says=lambda fixtures, count: (
        f"gives the expected blocks read by read and the expected close() on "
        f"{len(fixtures) - len(RULE_CASES) - GENERATED_COUNT} fixtures, {GENERATED_COUNT} generated streams "
        f"and {len(RULE_CASES)} inputs chosen to separate the rules, under {count} partitions in all"
    ),
    not_yours=NotYours(
        "a cutter written on bytes alone: bytes.find / index / split and slicing, no decoding, "
        "and none of the package's decoder, line splitter or parsers (not subclassed, held or called)",
        classes=(blocks.BlockCutter, Utf8Decoder, LineSplitter, EventAssembler, SSEParser, LayeredSSEParser),
        code=(blocks, decoding, lines, package_events, layered, parser, codecs),
    ),
)


@exercise("your block cutter")
def check_block_cutter(factory: Callable[[], Any]) -> str:
    """Exercise 09: ``factory()`` returns a cutter with ``feed(bytes) -> list[bytes]``
    (the blocks the chunk completes) and ``close() -> bytes`` (the bytes after the
    last block), compared feed by feed with the course's (blocks.py)."""
    return f"{BLOCK_CUTTER.verify(factory)}, {block_cutter_growth(factory)}"


def block_cutter_growth(factory: Callable[[], Any]) -> str:
    """Exercise 09's growth: one long line, then a blank line, in small reads, at n and 4n bytes;
    and many short blocks in one read."""
    block = functools.partial(data_line, end=b"\n\n")
    grows = long_line_growth(BLOCK_CUTTER.what, factory, blocks.BlockCutter, block, 512 * 1024, HELD_LINE_HINT)
    many_lines_growth(BLOCK_CUTTER.what, factory, blocks.BlockCutter, b"data: x\n\n", MANY_LINES_BYTES)
    return grows
