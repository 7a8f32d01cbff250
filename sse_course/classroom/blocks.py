"""Exercise 09: cut a stream's bytes into event blocks, before any decoding.

A *block* is the bytes of one event block: its lines, then the blank line that
ends it, every line end included (CR, LF or CRLF). CR and LF are ASCII and never
occur inside a UTF-8 sequence, so blocks can be cut on the bytes and each one
decoded on its own, once (lesson 09).

:class:`BlockCutter` is the reference; :func:`check_block_cutter` compares a
learner's cutter with it, feed by feed, on every fixture under every partition
strategy of the harness, and on inputs chosen to separate the rules. The check
is a declaration on the checking engine, in :mod:`sse_course.classroom.checks`
(where every check lives); this module gives it the reference and the inputs.
"""

from __future__ import annotations

from dataclasses import replace

from .. import __version__
from .fixtures import Fixture, load_fixtures
from .harness import STRATEGIES, Partition

CR, LF = 13, 10


class BlockCutter:
    """bytes -> blocks: each event block's bytes, through the line end of its blank line.

    A CR ends its line at once; an LF right after it (in this chunk or a later
    one) belongs to that line end: kept inside a block, dropped after a block.
    """

    def __init__(self) -> None:
        self.held = bytearray()  # the bytes after the last block
        self.line_start = 0  # where the unfinished line starts in ``held``
        self.after_cr = False  # the last byte was a CR: an LF next is its CRLF's

    def feed(self, chunk: bytes) -> list[bytes]:
        """The blocks this chunk completes, in stream order."""
        if not chunk:
            return []  # an empty read changes nothing, not even a pending CR
        held = self.held
        search = len(held)  # ``held`` has no line end past ``line_start``
        if self.after_cr and chunk[0] == LF:
            if held:  # the CR ended a line inside the block: the LF stays with it
                search += 1
                self.line_start = search
            else:  # the CR ended a block's blank line: its LF is in no block
                chunk = chunk[1:]
        self.after_cr = chunk[-1:] == b"\r"
        held += chunk
        blocks: list[bytes] = []
        first = 0  # where the next block starts
        cr, lf = held.find(b"\r", search), held.find(b"\n", search)
        while cr >= 0 or lf >= 0:
            end = lf if cr < 0 or 0 <= lf < cr else cr
            after = end + 2 if end == cr and lf == end + 1 else end + 1
            if end == self.line_start:  # an empty line: the blank line that ends a block
                blocks.append(bytes(held[first:after]))
                first = after
            self.line_start = after
            if 0 <= cr < after:  # -1 stays -1: no CR is ahead, and searching again would read the rest again
                cr = held.find(b"\r", after)
            if 0 <= lf < after:
                lf = held.find(b"\n", after)
        del held[:first]
        self.line_start -= first
        return blocks

    def close(self) -> bytes:
        """End of stream: the bytes after the last block (``b""`` if none)."""
        rest = bytes(self.held)
        self.held.clear()
        self.line_start = 0
        return rest


# --- the inputs -------------------------------------------------------------


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
