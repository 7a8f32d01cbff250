"""Right answers written the way the exercises ask (their own code, not the package's):
the checks must accept them, and the rule mutants in test_rules.py each break one rule of them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from sse_course import DecodeError, Event, IncompleteStream
from sse_course.classroom.exercises import ContractError, ProviderError
from sse_course.errors import LineTooLong
from sse_course.lines import LineSplitter

CR, LF = 13, 10


def safe_cut(buffer: bytes) -> int:
    """How many leading bytes of buffer end on a character boundary (exercise 02, part 1)."""
    for back in range(1, min(4, len(buffer)) + 1):
        lead = buffer[-back]
        if lead >> 6 != 0b10:
            promised = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
            return len(buffer) - back if promised > back else len(buffer)
    return len(buffer)


class Decoder:
    """bytes -> text without codecs (exercise 02, part 2); calls ``safe_cut`` by name, as the notebook does."""

    def __init__(self, errors: str = "strict") -> None:
        self.errors = errors
        self.held = b""
        self.offset = 0
        self.at_start = True

    def feed(self, chunk: bytes) -> str:
        return self.decode(chunk, final=False)

    def close(self) -> str:
        return self.decode(b"", final=True)

    def decode(self, chunk: bytes, final: bool) -> str:
        buffer = self.held + chunk
        cut = len(buffer) if final else safe_cut(buffer)
        whole, self.held = buffer[:cut], buffer[cut:]
        start, self.offset = self.offset, self.offset + cut
        try:
            text = whole.decode("utf-8", self.errors)
        except UnicodeDecodeError as err:
            before = self.drop_bom(whole[: err.start].decode("utf-8"))
            raise DecodeError(start + err.start, whole[err.start : err.end], err.reason, before) from None
        return self.drop_bom(text)

    def drop_bom(self, text: str) -> str:
        if self.at_start and text:
            self.at_start = False
            return text.removeprefix("\ufeff")
        return text


class ByteLines:
    """bytes -> lines of bytes (exercise 03)."""

    def __init__(self, strict: bool = True) -> None:
        self.strict = strict
        self.pieces: list[bytes] = []
        self.after_cr = False

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        pos = 1 if self.after_cr and chunk[0] == LF else 0
        self.after_cr = chunk[-1] == CR
        lines = []
        next_cr, next_lf = chunk.find(b"\r", pos), chunk.find(b"\n", pos)
        while next_cr >= 0 or next_lf >= 0:
            end = next_lf if next_cr < 0 or 0 <= next_lf < next_cr else next_cr
            lines.append(b"".join([*self.pieces, chunk[pos:end]]))
            self.pieces = []
            pos = end + (2 if chunk.startswith(b"\r\n", end) else 1)
            if 0 <= next_cr < pos:
                next_cr = chunk.find(b"\r", pos)
            if 0 <= next_lf < pos:
                next_lf = chunk.find(b"\n", pos)
        if pos < len(chunk):
            self.pieces.append(chunk[pos:])
        return lines

    def close(self) -> list[bytes]:
        if self.pieces and self.strict:
            raise IncompleteStream("stream ended inside a line")
        self.pieces = []
        return []


LINE_END_CHAR = re.compile(r"[\r\n]")


class LineLimit:
    """A guard in front of the package's LineSplitter (exercise 05, part 2)."""

    def __init__(self, max_line_chars: int, strict: bool = True) -> None:
        self.max_line_chars = max_line_chars
        self.splitter = LineSplitter(strict=strict)
        self.line_chars = 0

    def feed(self, text: str) -> list[str]:
        start, chars = 0, self.line_chars  # where the current line starts in text; its characters before
        for end in LINE_END_CHAR.finditer(text):  # no copy of the text: only where each line ends
            if chars + end.start() - start > self.max_line_chars:
                break
            start, chars = end.end(), 0
        if chars + len(text) - start > self.max_line_chars:  # the line from start is too long
            raise LineTooLong(self.max_line_chars, self.splitter.feed(text[:start]))
        self.line_chars = chars + len(text) - start
        return self.splitter.feed(text)

    def close(self) -> list[str]:
        return self.splitter.close()


def line_end(buffer: bytes | bytearray, start: int = 0) -> int:
    """Where the first CR or LF at or after ``start`` is, or -1 (exercise 09)."""
    cr, lf = buffer.find(b"\r", start), buffer.find(b"\n", start)
    return lf if cr < 0 or 0 <= lf < cr else cr


def line_ends(buffer: bytes | bytearray, start: int = 0) -> Iterator[tuple[int, int]]:
    """Each line end at or after ``start``: where it is, and where the next line starts (exercise 09).
    A search's answer is kept until passed, so each byte is searched once."""
    cr, lf = buffer.find(b"\r", start), buffer.find(b"\n", start)
    while cr >= 0 or lf >= 0:
        end = lf if cr < 0 or 0 <= lf < cr else cr
        after = end + 2 if end == cr and lf == end + 1 else end + 1
        yield end, after
        if 0 <= cr < after:
            cr = buffer.find(b"\r", after)
        if 0 <= lf < after:
            lf = buffer.find(b"\n", after)


class BlockCutter:
    """bytes -> blocks, through the line end of each blank line (exercise 09)."""

    def __init__(self) -> None:
        self.held = bytearray()
        self.line = 0  # where the unfinished line starts in held
        self.after_cr = False

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        searched = len(self.held)
        if self.after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
            if self.held:  # the CR ended a line inside the block: the LF stays with it
                self.held += b"\n"
                searched = self.line = len(self.held)
        self.after_cr = chunk.endswith(b"\r")
        self.held += chunk
        blocks, first = [], 0
        for end, after in line_ends(self.held, searched):
            if end == self.line:
                blocks.append(bytes(self.held[first:after]))
                first = after
            self.line = after
        del self.held[:first]
        self.line -= first
        return blocks

    def close(self) -> bytes:
        rest = bytes(self.held)
        self.held.clear()
        return rest


class NamedEvents:
    """Exercise 06's contract of named events, written as the exercise asks."""

    def __init__(self) -> None:
        self.done = False
        self.count = 0

    def feed(self, events: Iterable[Event]) -> list[str]:
        texts = []
        for event in events:
            index, self.count = self.count, self.count + 1
            if self.done:
                raise ContractError(f"event {index + 1}: {event.type!r} after done")
            if event.type == "done":
                self.done = True
            elif event.type == "delta":
                texts.append(self.field(event, index, "text"))
            elif event.type == "error":
                raise ProviderError(self.field(event, index, "message"))
        return texts

    def field(self, event: Event, index: int, key: str) -> str:
        try:
            value = json.loads(event.data)
        except json.JSONDecodeError:
            raise ContractError(f"event {index + 1}: {event.type} data is not JSON") from None
        if not isinstance(value, dict) or not isinstance(value.get(key), str):
            raise ContractError(f"event {index + 1}: {event.type} needs a string {key!r}")
        return value[key]

    def close(self) -> list[str]:
        if not self.done:
            raise ContractError(f"the stream ended after {self.count} events without done")
        return []


class JsonLines:
    """Exercise 01: bytes -> JSON values, one per LF-terminated line, parsed only when complete."""

    def __init__(self) -> None:
        self.held = bytearray()

    def feed(self, chunk: bytes) -> list[Any]:
        last_lf = chunk.rfind(b"\n")  # only the new bytes: what is held has no LF
        if last_lf < 0:
            self.held += chunk
            return []
        complete = bytes(self.held) + chunk[:last_lf]
        self.held = bytearray(chunk[last_lf + 1 :])
        return [json.loads(line) for line in complete.split(b"\n") if line.strip()]

    def close(self) -> list[Any]:
        rest, self.held = bytes(self.held), bytearray()
        return [json.loads(rest)] if rest.strip() else []
