"""Mutants and wrong answers shared by the test modules: each breaks one stated rule of a right
answer (learner_code.py), or reaches code that is not the learner's. A helper module, not a test
module, so that no test module imports another."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import learner_code
from learner_code import BlockCutter, ByteLines, Decoder, LineLimit

from sse_course import DecodeError
from sse_course.classroom import blocks, checks
from sse_course.classroom.exercises import ex06_payloads as ex06
from sse_course.errors import LineTooLong
from sse_course.events import parse_retry
from sse_course.lines import LineSplitter
from sse_course.payloads import JSONPayloads, PayloadError


def cut_never_holds(buffer: bytes) -> int:
    return len(buffer)


def cut_holds_a_whole_character(buffer: bytes) -> int:
    """Holds the last character even when all its bytes are there (``>=`` for ``>``)."""
    for back in range(1, min(4, len(buffer)) + 1):
        lead = buffer[-back]
        if lead >> 6 != 0b10:
            promised = 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110 else 4 if lead >> 3 == 0b11110 else 1
            return len(buffer) - back if promised >= back and promised > 1 else len(buffer)
    return len(buffer)


def cut_holds_invalid_bytes(buffer: bytes) -> int:
    """Holds a trailing 0xF8-0xFF byte as if it were a lead byte."""
    return len(buffer) - 1 if buffer and buffer[-1] >= 0xF8 else learner_code.safe_cut(buffer)


def cut_skips_invalid_bytes(buffer: bytes) -> int:
    """Skips C0, C1 and F5-FF as if they were continuation bytes, so a lead byte before one is held (E2 FF)."""
    for back in range(1, min(3, len(buffer)) + 1):
        lead = buffer[-back]
        if lead < 0x80 or 0xC2 <= lead <= 0xF4:
            promised = 1 if lead < 0x80 else 2 if lead <= 0xDF else 3 if lead <= 0xEF else 4
            return len(buffer) - back if promised > back else len(buffer)
    return len(buffer)


class DecodesEveryChunk(Decoder):
    def decode(self, chunk: bytes, final: bool) -> str:
        return super().decode(chunk, final=True)


class CloseForgetsHeld(Decoder):
    def close(self) -> str:
        self.held = b""
        return ""


class BomDroppedEverywhere(Decoder):
    def drop_bom(self, text: str) -> str:
        return text.replace("\ufeff", "")


class NeverStrict(Decoder):
    def __init__(self, errors: str = "strict") -> None:
        super().__init__("replace")


class IgnoresInvalid(Decoder):
    def __init__(self, errors: str = "strict") -> None:
        super().__init__("ignore" if errors == "replace" else errors)


class OffsetInChunk(Decoder):
    """Counts the offset from the start of the bytes decoded this time, not of the stream."""

    def decode(self, chunk: bytes, final: bool) -> str:
        start = self.offset
        try:
            return super().decode(chunk, final)
        except DecodeError as err:
            raise DecodeError(err.offset - start, err.bad_bytes, err.reason, err.completed) from None


class CompletedLost(Decoder):
    def decode(self, chunk: bytes, final: bool) -> str:
        try:
            return super().decode(chunk, final)
        except DecodeError as err:
            raise DecodeError(err.offset, err.bad_bytes, err.reason, "") from None


class Splitting(ByteLines):
    """ByteLines whose line ends come from ``ends(chunk)``: a simpler, separate splitter for mutants."""

    SEPARATORS: tuple[bytes, ...] = (b"\r\n", b"\r", b"\n")

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        pos = 1 if self.after_cr and chunk[:1] == b"\n" else 0
        self.after_cr = chunk.endswith(b"\r")
        lines = []
        while True:
            found = [(chunk.find(sep, pos), -len(sep), sep) for sep in self.SEPARATORS if chunk.find(sep, pos) >= 0]
            if not found:
                break
            at, _, sep = min(found)
            lines.append(b"".join([*self.pieces, chunk[pos:at]]))
            self.pieces = []
            pos = at + len(sep)
        if pos < len(chunk):
            self.pieces.append(chunk[pos:])
        return lines


class LfNotAnEnd(Splitting):
    SEPARATORS = (b"\r\n", b"\r")


class CrNotAnEnd(Splitting):
    SEPARATORS = (b"\r\n", b"\n")


class CrlfTwoEnds(Splitting):
    SEPARATORS = (b"\r", b"\n")


class CrWaits:
    """Holds a chunk's final CR until the next chunk says whether an LF follows."""

    def __init__(self, strict: bool = True) -> None:
        self.lines, self.tail = ByteLines(strict), b""

    def feed(self, chunk: bytes) -> list[bytes]:
        text = self.tail + chunk
        self.tail = b"\r" if text.endswith(b"\r") else b""
        return self.lines.feed(text.removesuffix(b"\r")) if text else []

    def close(self) -> list[bytes]:
        return self.lines.feed(self.tail) + self.lines.close()


class LfAfterCrKept(ByteLines):
    def feed(self, chunk: bytes) -> list[bytes]:
        self.after_cr = False
        return super().feed(chunk)


class EmptyChunkResets(ByteLines):
    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            self.after_cr = False
        return super().feed(chunk)


class UnfinishedDropped(ByteLines):
    def feed(self, chunk: bytes) -> list[bytes]:
        lines = super().feed(chunk)
        self.pieces = []
        return lines


class NeverIncomplete(ByteLines):
    def __init__(self, strict: bool = True) -> None:
        super().__init__(strict=False)


class AlwaysIncomplete(ByteLines):
    def __init__(self, strict: bool = True) -> None:
        super().__init__(strict=True)


class Decodes(ByteLines):
    def feed(self, chunk: bytes) -> list[bytes]:
        return super().feed(chunk.decode("utf-8").encode("utf-8"))


def encoder(
    space: str = " ",
    split: bool = True,
    refuse: bool = True,
    fields: bool = True,
    end: str = "\n\n",
    retry_read_back: bool = True,
    type_refuses: str = "\r\n",
) -> Callable[..., bytes]:
    """An encoder, right with the defaults; each argument switches one mistake on
    (``retry_read_back=False`` refuses only a negative retry; ``type_refuses="\\r\\n\\0"`` refuses a type
    holding NUL, which travels: only an id holding NUL is ignored)."""

    def encode(data: str, event: str | None = None, id: str | None = None, retry: int | None = None) -> bytes:
        given = {"event": event, "id": id, "retry": retry} if fields else {"event": event}
        cannot = ((event, type_refuses), (id, "\r\n\0"))  # (a value, the characters it cannot carry)
        if refuse and ("\r" in data or any(v is not None and any(c in v for c in cs) for v, cs in cannot)):
            raise ValueError("no stream can carry this")
        if refuse and retry is not None and (parse_retry(str(retry)) != retry if retry_read_back else retry < 0):
            raise ValueError(f"a parser would not read retry={retry!r} back")
        lines = [f"{name}: {value}" for name, value in given.items() if value is not None]
        lines += [f"data:{space}{line}" for line in (data.split("\n") if split else [data])]
        return ("\n".join(lines) + end).encode()

    return encode


class NoLimit(LineLimit):
    def feed(self, text: str) -> list[str]:
        return self.splitter.feed(text)


class LimitIncludesTheEnd(LineLimit):
    def __init__(self, max_line_chars: int, strict: bool = True) -> None:
        super().__init__(max_line_chars - 1, strict)


class UnfinishedNotCounted(LineLimit):
    def feed(self, text: str) -> list[str]:
        self.line_chars = 0
        return super().feed(text)


class CompletedDropped(LineLimit):
    def feed(self, text: str) -> list[str]:
        try:
            return super().feed(text)
        except LineTooLong as err:
            raise LineTooLong(err.limit, []) from None


class LimitOnCompleteLines(LineLimit):
    """Measures the lines the splitter completes: right on every fixture's lines, but an
    unfinished line is buffered until the package splitter's own limit refuses it."""

    def feed(self, text: str) -> list[str]:
        lines = self.splitter.feed(text)
        if any(len(line) > self.max_line_chars for line in lines):
            raise LineTooLong(self.max_line_chars, [])
        return lines


class LimitAfterSplitting:
    """Hands each text to the splitter first, then counts every CR and LF in it as a line end: it holds
    the long line before refusing it, and counts the LF of a CRLF cut by the reads as one more line."""

    def __init__(self, max_line_chars: int, strict: bool = True) -> None:
        self.max_line_chars = max_line_chars
        self.splitter = LineSplitter(1 << 62, strict=strict)
        self.partial = 0

    def feed(self, text: str) -> list[str]:
        lines = self.splitter.feed(text)
        start = count = 0
        for end in learner_code.LINE_END_CHAR.finditer(text):
            if self.partial + end.start() - start > self.max_line_chars:
                raise LineTooLong(self.max_line_chars, lines[:count])
            self.partial, count, start = 0, count + 1, end.end()
        self.partial += len(text) - start
        if self.partial > self.max_line_chars:
            raise LineTooLong(self.max_line_chars, lines)
        return lines

    def close(self) -> list[str]:
        return self.splitter.close()


class DataNotText(learner_code.NamedEvents):
    def field(self, event: Any, index: int, key: str) -> str:
        super().field(event, index, key)
        return event.data


class ErrorSkipped(learner_code.NamedEvents):
    def feed(self, events: Any) -> list[str]:
        return super().feed([event for event in events if event.type != "error"])


class DoneGivesText(learner_code.NamedEvents):
    def feed(self, events: Any) -> list[str]:
        events = list(events)
        texts = super().feed(events)
        return texts + ["" for event in events if event.type == "done"]


class UnknownTypesRefused(learner_code.NamedEvents):
    def feed(self, events: Any) -> list[str]:
        events = list(events)
        if any(event.type not in ("delta", "error", "done") for event in events):
            raise ex06.ContractError("unknown event type")
        return super().feed(events)


class AfterDoneAllowed(learner_code.NamedEvents):
    def feed(self, events: Any) -> list[str]:
        texts = super().feed([e for e in events if not self.done])
        return texts


class CountsPerFeed(learner_code.NamedEvents):
    """Numbers the events of each feed from 1: an error's message names the wrong event."""

    def feed(self, events: Any) -> list[str]:
        self.count = 0
        return super().feed(events)


class NoEndRequired(learner_code.NamedEvents):
    def close(self) -> list[str]:
        return []


class JsonLeaks(learner_code.NamedEvents):
    def field(self, event: Any, index: int, key: str) -> str:
        return json.loads(event.data)[key]


class AllTypes(JSONPayloads):
    def __init__(self, **config: Any) -> None:
        super().__init__(**{**config, "event_types": None})


class NoRequiredKeys(JSONPayloads):
    def __init__(self, **config: Any) -> None:
        super().__init__(**{**config, "required_keys": ()})


class NoEndMarker(JSONPayloads):
    def __init__(self, **config: Any) -> None:
        super().__init__(**{**config, "end_marker": None})


class PayloadsDropped(JSONPayloads):
    """Raises the right error, without the payloads its feed completed before it."""

    def feed(self, events: Any) -> list:
        try:
            return super().feed(events)
        except PayloadError as err:
            err.payloads = []
            raise


class CutterCrWaits(BlockCutter):
    """Waits for the next chunk after a CR, to see whether an LF follows."""

    def __init__(self) -> None:
        super().__init__()
        self.cr = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            return []
        chunk, self.cr = self.cr + chunk, b""
        if chunk.endswith(b"\r"):
            chunk, self.cr = chunk[:-1], b"\r"
        return super().feed(chunk)

    def close(self) -> bytes:
        return super().close() + self.cr


class CutterForgetsTheCr(BlockCutter):
    def feed(self, chunk: bytes) -> list[bytes]:
        self.after_cr = False
        return super().feed(chunk)


class CutterEmptyChunkResets(BlockCutter):
    def feed(self, chunk: bytes) -> list[bytes]:
        if not chunk:
            self.after_cr = False
        return super().feed(chunk)


class OnlyLfLf:
    """Finds only LF LF: a CR blank line never ends a block."""

    def __init__(self) -> None:
        self.held = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        *found, self.held = (self.held + chunk).split(b"\n\n")
        return [block + b"\n\n" for block in found]

    def close(self) -> bytes:
        return self.held


class CutterDropsInnerLf(BlockCutter):
    """Drops the LF of a CRLF split between chunks inside a block, too."""

    def feed(self, chunk: bytes) -> list[bytes]:
        if self.after_cr and chunk.startswith(b"\n") and self.held:
            chunk = chunk[1:]
            self.after_cr = False
        return super().feed(chunk)


class CutterDecodes(BlockCutter):
    def feed(self, chunk: bytes) -> list[bytes]:
        return [block.decode("utf-8").encode("utf-8") for block in super().feed(chunk)]


class CutterLosesTheRest(BlockCutter):
    def close(self) -> bytes:
        super().close()
        return b""


def pipeline_of(adapter: type) -> Callable[..., Any]:
    return lambda **config: checks.AdapterPipeline(adapter(**config))


class WrapsTheCoursesCutter:
    def __init__(self) -> None:
        self.inner = blocks.BlockCutter()

    def feed(self, chunk: bytes) -> list[bytes]:
        return self.inner.feed(chunk)

    def close(self) -> bytes:
        return self.inner.close()


class Holder:
    """Names nothing of the package, but is handed one of its objects."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def feed(self, chunk: bytes) -> list[bytes]:
        return self.inner.feed(chunk)

    def close(self) -> bytes:
        return self.inner.close()


def handed_a_cutter() -> Holder:
    return Holder(blocks.BlockCutter())
