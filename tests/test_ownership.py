"""Checks that know who wrote the code: where a task says "write X", code that reaches the
package's X (a subclass, a wrapper holding it, a call into it) is rejected as NOT YOURS, with
the task's words; and a part is checked with the reference for the other parts."""

from __future__ import annotations

import codecs
import encodings.utf_8
from collections.abc import Callable
from typing import Any

import learner_code
import pytest

from sse_course.classroom import blocks, checks
from sse_course.classroom.checking import CheckFailed, Kind
from sse_course.classroom.checking.declare import reference_parts
from sse_course.decoding import Utf8Decoder
from sse_course.lines import LineSplitter


class WrapsUtf8Decoder:
    def __init__(self, errors: str = "strict") -> None:
        self.inner = Utf8Decoder(errors)

    def feed(self, chunk: bytes) -> str:
        return self.inner.feed(chunk)

    def close(self) -> str:
        return self.inner.close()


class SubclassesUtf8Decoder(Utf8Decoder):
    pass


class WrapsCodecs:
    def __init__(self, errors: str = "strict") -> None:
        self.errors = errors
        self.inner: Any = None

    def feed(self, chunk: bytes) -> str:
        self.inner = self.inner or codecs.getincrementaldecoder("utf-8")(self.errors)
        return self.inner.decode(chunk)

    def close(self) -> str:
        return (self.inner or codecs.getincrementaldecoder("utf-8")(self.errors)).decode(b"", True)


class SubclassesCodecs(encodings.utf_8.IncrementalDecoder):
    def feed(self, chunk: bytes) -> str:
        return self.decode(chunk)

    def close(self) -> str:
        return self.decode(b"", True)


class CallsUtf8Decoder(learner_code.Decoder):
    """Holds nothing of the package's: a fresh Utf8Decoder decodes each whole buffer."""

    def decode(self, chunk: bytes, final: bool) -> str:
        super().decode(b"", final=False)
        return Utf8Decoder(self.errors).feed(chunk) if chunk else ""


class WrapsLineSplitter(checks.LatinLines):
    """The package's splitter on bytes read as Latin-1: a wrapper."""


class SubclassesLineSplitter(LineSplitter):
    def feed(self, chunk: bytes) -> list[bytes]:  # type: ignore[override]
        return [line.encode("latin-1") for line in super().feed(chunk.decode("latin-1"))]


class DelegatesTheLimit:
    """``LineSplitter(max_line_chars)`` with plain delegation: the package's limit, not one written."""

    def __init__(self, max_line_chars: int, strict: bool = True) -> None:
        self.splitter = LineSplitter(max_line_chars, strict)

    def feed(self, text: str) -> list[str]:
        return self.splitter.feed(text)

    def close(self) -> list[str]:
        return self.splitter.close()


class SubclassesTheSplitter(LineSplitter):
    pass


class CutterOnTheSplitter(LineSplitter):
    """A block cutter built on the package's line splitter (bytes read as Latin-1)."""

    def feed(self, chunk: bytes) -> list[bytes]:  # type: ignore[override]
        return [line.encode("latin-1") for line in super().feed(chunk.decode("latin-1"))]


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


#: check -> (the code that is not the learner's, the direction NOT YOURS states, the task's words shown).
NOT_YOURS: dict[str, tuple[Callable[..., Any], str, str]] = {
    "decoder-wrapper": (checks.check_decoder, WrapsUtf8Decoder, "calls", "no Utf8Decoder"),
    "decoder-subclass": (checks.check_decoder, SubclassesUtf8Decoder, "subclass", "no Utf8Decoder"),
    "decoder-codecs-wrapper": (checks.check_decoder, WrapsCodecs, "calls", "no codecs incremental decoder"),
    "decoder-codecs-subclass": (checks.check_decoder, SubclassesCodecs, "subclass", "no codecs incremental decoder"),
    "decoder-call": (checks.check_decoder, CallsUtf8Decoder, "calls", "no Utf8Decoder"),
    "byte-lines-wrapper": (checks.check_byte_lines, WrapsLineSplitter, "calls", "on bytes with bytes.find"),
    "byte-lines-subclass": (
        checks.check_byte_lines,
        SubclassesLineSplitter,
        "subclass",
        "not the package's LineSplitter",
    ),
    "line-limit-wrapper": (checks.check_line_limit, DelegatesTheLimit, "raised by", "write the limit yourself"),
    "line-limit-subclass": (checks.check_line_limit, SubclassesTheSplitter, "subclass", "must not subclass it"),
    "block-cutter-wrapper": (checks.check_block_cutter, WrapsTheCoursesCutter, "calls", "bytes alone"),
    "block-cutter-subclass": (checks.check_block_cutter, CutterOnTheSplitter, "subclass", "line splitter or parsers"),
    "block-cutter-handed-in": (checks.check_block_cutter, handed_a_cutter, "calls", "bytes alone"),
    "block-cutter-the-reference": (checks.check_block_cutter, blocks.BlockCutter, "subclass", "bytes alone"),
}


@pytest.mark.parametrize("case", sorted(NOT_YOURS))
def test_code_that_reaches_the_package_is_not_yours(case: str) -> None:
    check, code, direction, task = NOT_YOURS[case]
    with pytest.raises(CheckFailed) as caught:
        check(code)
    verdict = caught.value.verdict
    assert (verdict.kind, verdict.direction) == (Kind.NOT_YOURS, direction), str(caught.value)
    headline, asks = str(caught.value).splitlines()
    assert headline.startswith("your ") and " is wrong: NOT YOURS (" in headline
    assert asks.startswith("The task asks: ") and task in asks


def test_every_write_x_part_has_a_wrapper_and_a_subclass_case() -> None:
    for check in (checks.check_decoder, checks.check_byte_lines, checks.check_line_limit, checks.check_block_cutter):
        directions = {direction for found, _, direction, _ in NOT_YOURS.values() if found is check}
        assert "subclass" in directions and directions - {"subclass"}, check.__name__


def test_a_guard_may_hold_the_package_splitter_when_the_task_builds_on_it() -> None:
    """Exercise 05's guard stands in front of LineSplitter: holding one is not a reach."""
    assert checks.LINE_LIMIT.not_yours.held(learner_code.LineLimit(10)) is None
    assert (
        checks.BYTE_LINES.not_yours.held(checks.LatinLines(True))
        == "your object.splitter is a sse_course.lines.LineSplitter"
    )


def wrong_safe_cut(buffer: bytes) -> int:
    return 0


def test_a_part_is_checked_with_the_reference_for_the_other_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Exercise 02's decoder calls the learner's safe_cut by name: while the decoder is
    checked, the reference stands in, so a wrong safe_cut is reported once, by its own check."""
    monkeypatch.setattr(learner_code, "safe_cut", wrong_safe_cut)
    decoder = learner_code.Decoder()
    assert decoder.feed("café".encode()) == ""  # the wrong safe_cut holds everything
    with reference_parts(learner_code.Decoder, checks.DECODER.parts):
        assert learner_code.Decoder().feed("café".encode()) == "café"
    assert learner_code.safe_cut is wrong_safe_cut, "the learner's own part is put back"
