"""Lesson 09's block cutter: a stream's bytes cut into event blocks, before any decoding.

A *block* is the bytes of one event block: its lines, then the blank line that
ends it, every line end included (CR, LF or CRLF). CR and LF are ASCII and never
occur inside a UTF-8 sequence, so blocks can be cut on the bytes and each one
decoded on its own, once (lesson 09).

:class:`BlockCutter` is also exercise 09's reference; its inputs and its check
are in :mod:`sse_course.classroom.exercises.ex09_performance`.
"""

from __future__ import annotations

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
