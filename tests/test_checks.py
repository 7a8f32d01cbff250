"""Every check tells right from wrong: it rejects every zoo member wrong for its
layer with the smallest failing split, accepts the package's own code, and says
"not attempted yet" (without raising) for a stub."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import learner_code
import pytest
from learner_code import Decoder
from mutants import (
    CountsPerFeed,
    JsonLeaks,
    LfAfterCrKept,
    LimitAfterSplitting,
    NoEndRequired,
    UnknownTypesRefused,
    cut_never_holds,
    cut_skips_invalid_bytes,
    encoder,
)
from mutants import (
    CrWaits as ByteCrWaits,
)

from sse_course import SSEParser
from sse_course.classroom import checks
from sse_course.classroom.checking import Kind, difference, inputs
from sse_course.classroom.checking.shrink import on_boundary, without_range
from sse_course.classroom.exercises import MODULES
from sse_course.classroom.exercises import ex02_bytes_to_text as ex02
from sse_course.classroom.exercises import ex03_text_to_lines as ex03
from sse_course.classroom.exercises import ex04_lines_to_events as ex04
from sse_course.classroom.exercises import ex05_limits_and_failures as ex05
from sse_course.classroom.exercises import ex06_payloads as ex06
from sse_course.classroom.fixtures import get_fixture
from sse_course.classroom.harness import find_failure
from sse_course.classroom.zoo import PAYLOAD_ZOO, ZOO, CrWaits, compose, members
from sse_course.decoding import Utf8Decoder
from sse_course.events import EventAssembler
from sse_course.lines import LineSplitter
from sse_course.payloads import JSONPayloads

ROOT = Path(__file__).resolve().parent.parent

#: Each layer's declaration, and the package's own layer (which the declarations
#: accept; the public checks of "write X" tasks reject it as NOT YOURS, see test_ownership.py).
LAYER_CHECKS: dict[str, tuple[checks.StreamCheck, type]] = {
    "decoding": (ex02.DECODER, Utf8Decoder),
    "lines": (checks.LINE_SPLITTER, LineSplitter),
    "events": (checks.EVENT_ASSEMBLER, EventAssembler),
    "limits": (ex05.LINE_LIMIT, LineSplitter),
}

K = Kind
#: The kind and direction each layer check must state for each zoo member (the
#: headline of its verdict: ``KIND (direction)``).
DIRECTIONS = {
    "decode-each-chunk": (K.WRONG_ERROR, "unexpected"),
    "errors-ignore": (K.MISSING_ERROR, "none raised"),
    "bom-kept": (K.MISSING, "never"),
    "bom-dropped-per-chunk": (K.EXTRA, "more"),
    "offset-without-pending": (K.WRONG_VALUE, "offset"),
    "never-final": (K.WRONG_ERROR, "other class"),
    "lf-only": (K.MISSING, "late"),
    "splitlines": (K.EXTRA, "early"),
    "cr-waits": (K.MISSING, "late"),
    "no-cr-then-lf": (K.EXTRA, "early"),
    "regex-order-wrong": (K.EXTRA, "early"),
    "skip-lf-lost-on-empty-read": (K.EXTRA, "early"),
    "lstrip-value": (K.WRONG_VALUE, ""),
    "split-every-colon": (K.WRONG_VALUE, ""),
    "sticky-event-type": (K.WRONG_VALUE, ""),
    "event-type-stripped": (K.WRONG_VALUE, ""),
    "dispatch-without-data": (K.EXTRA, "more"),
    "trailing-lf-kept": (K.WRONG_VALUE, ""),
    "dispatch-at-eof": (K.EXTRA, "more"),
    "retry-int": (K.WRONG_VALUE, ""),
    "id-with-nul": (K.WRONG_VALUE, ""),
    "id-reset-per-event": (K.WRONG_VALUE, ""),
    "eager-last-event-id": (K.WRONG_VALUE, "state"),
    "retry-reset-per-event": (K.WRONG_VALUE, "state"),
    "case-insensitive-names": (K.WRONG_VALUE, ""),
    "line-limit-at-line-end": (K.WRONG_ERROR, "other class"),
    "line-limit-in-bytes": (K.WRONG_ERROR, "unexpected"),
}


def rejection(check: Callable[[], None]) -> str:
    return str(failed(check))


def failed(check: Callable[[], None]) -> checks.CheckFailed:
    with pytest.raises(checks.CheckFailed) as caught:
        check()
    return caught.value


def assert_shows_split(message: str) -> None:
    assert "under the split" in message and "\n    b'" in message and "expected: " in message and "got: " in message, (
        message
    )


def assert_headline(failure: checks.CheckFailed, kind: Kind, direction: str) -> None:
    """The verdict says the kind and direction, as data and in the message's first line."""
    verdict = failure.verdict
    assert (verdict.kind, verdict.direction) == (kind, direction), str(failure)
    headline = kind.value + (f" ({direction})" if direction else "")
    assert str(failure).split(": ", 1)[1].startswith(headline + ": "), str(failure)


def assert_smallest(failure: checks.CheckFailed) -> None:
    """No cut can be dropped and no character deleted with the same difference left."""
    raw, cuts, kind = failure.raw, failure.cuts, failure.found.key
    for i in range(len(cuts)):
        trial = failure.recheck(raw, cuts[:i] + cuts[i + 1 :])
        assert trial is None or trial.key != kind, (raw, cuts, i)
    start = 0
    while start < len(raw):
        size = next(n for n in range(1, 5) if on_boundary(raw, start + n))
        shorter, moved = without_range(raw, cuts, start, size)
        trial = failure.recheck(shorter, moved) if shorter else None
        assert trial is None or trial.key != kind, (raw, cuts, start)
        start += size


@pytest.mark.parametrize("name", [n for layer in LAYER_CHECKS for n in members(layer=layer)])
def test_layer_check_rejects_zoo_member_shrunk_in_the_right_direction(name: str) -> None:
    declared, _ = LAYER_CHECKS[ZOO[name].layer]
    failure = failed(lambda: declared.verify(ZOO[name].part, own=False))
    assert_shows_split(str(failure))
    assert_headline(failure, *DIRECTIONS[name])
    assert_smallest(failure)


def test_every_layer_member_has_its_direction_stated() -> None:
    assert set(DIRECTIONS) == {n for layer in LAYER_CHECKS for n in members(layer=layer)}


def test_decode_error_offset_counts_bytes_held_from_earlier_reads() -> None:
    """The issue's case: the bad byte at 6 follows two bytes held from read 1."""
    chunks = [b"data: \xf0\x9f", b"x\n\n"]
    expected = checks.reference_trace(b"".join(chunks), (8,), "strict", "{}")
    got = checks.event_trace(lambda: compose("strict", decoder=ZOO["offset-without-pending"].part()), chunks)
    assert expected.error == ("DecodeError", 6) and got.error == ("DecodeError", 8)
    found = difference(expected, got)
    assert (found.kind, found.direction) == (
        Kind.WRONG_VALUE,
        "offset",
    ) and "DecodeError at byte 6 is right, your code says byte 8" in found.says


def test_last_event_id_is_compared_after_every_read() -> None:
    """The issue's case: the events agree, what a reconnecting client sends does not."""
    raw = b"id: 1\ndata: a\n\nid: 2\ndata: b"
    expected = checks.reference_trace(raw, (), "browser", "{}")
    got = checks.event_trace(lambda: compose("browser", assembler=ZOO["eager-last-event-id"].part(strict=False)), [raw])
    assert expected.items() == got.items() and expected.states[0][0] == "1" and got.states[0][0] == "2"
    assert difference(expected, got).key == (Kind.WRONG_VALUE, "state", ("last_event_id",))


def test_a_failure_shows_only_its_message_in_a_notebook() -> None:
    failure = failed(lambda: checks.check_line_splitter(ZOO["no-cr-then-lf"].part))
    assert failure._render_traceback_() == [f"CheckFailed: {failure}"]
    assert isinstance(failure, AssertionError)


#: Each zoo member in each profile where it is wrong. Where a member is right (its
#: profile hides the mistake), tests/test_zoo.py runs it under every partition.
WRONG_PAIRS = [(name, profile) for name in members() for profile in sorted(ZOO[name].wrong_in)]


@pytest.mark.parametrize("name, profile", WRONG_PAIRS)
def test_check_parser_rejects_zoo_member(name: str, profile: str) -> None:
    failure = failed(lambda: checks.check_parser(functools.partial(ZOO[name], profile), profile))
    assert_shows_split(str(failure))
    kinds = {DIRECTIONS[name][0]}
    if "ERROR" in DIRECTIONS[name][0].value:  # the error the other profile expects may differ
        kinds = {K.WRONG_ERROR, K.MISSING_ERROR}
        if profile == "browser" and ZOO[name].layer == "decoding":
            kinds = {K.WRONG_VALUE}  # the browser profile raises no decoding error: U+FFFD changes the data
    assert failure.verdict.kind in kinds, str(failure)
    assert_smallest(failure)


#: The layers no solution notebook checks: a right decoder, line limit, byte line splitter
#: and block cutter are accepted by the check cells of solutions 02, 05, 03 and 09 (nbval
#: runs them, on the learner's own code and with NOT YOURS watching).
UNCHECKED_BY_A_SOLUTION = ("events", "lines")


#: The check cell of each solution that stands for an "accepts a right answer" test here.
SOLUTION_CHECK_CELLS = {
    "02-bytes-to-text": "check_decoder(Decoder)",
    "03-text-to-lines": "check_byte_lines(ByteLines)",
    "05-limits-and-failures": "check_line_limit(LineLimit)",
    "09-performance": "check_block_cutter(BlockCutter)",
}


@pytest.mark.parametrize("name", sorted(SOLUTION_CHECK_CELLS))
def test_a_solution_shows_its_check_accepting_the_right_answer(name: str) -> None:
    """nbval compares the stored output with a fresh run, so the stored "Correct" is this run's."""
    cells = json.loads((ROOT / "solutions" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    outputs = [
        "".join(out.get("text", ""))
        for cell in cells
        if "".join(cell["source"]).strip() == SOLUTION_CHECK_CELLS[name]
        for out in cell["outputs"]
    ]
    assert len(outputs) == 1 and outputs[0].startswith("Correct: "), outputs


@pytest.mark.parametrize("layer", UNCHECKED_BY_A_SOLUTION)
def test_layer_check_accepts_the_package(layer: str, capsys: pytest.CaptureFixture[str]) -> None:
    declared, reference = LAYER_CHECKS[layer]
    verified = declared.verify(reference, own=False)
    assert "partitions" in verified and "strict and browser" in verified


class EmptyReadDropsTheBlock(EventAssembler):
    """Takes a feed of no lines for a stalled stream and drops the data read so far: wrong
    only where a read completes no line while an event is open (two cuts in one line, or
    an empty read), never under one read or one cut."""

    def feed(self, lines: list[str]) -> list:
        if not lines:
            self.data_lines = []
        return super().feed(lines)


class OneEventPerFeed(EventAssembler):
    """Returns the first event each feed completes and loses the others: wrong only where
    one read completes two events."""

    def feed(self, lines: list[str]) -> list:
        return super().feed(lines)[:1]


@pytest.mark.parametrize("mutant, direction", [(EmptyReadDropsTheBlock, ""), (OneEventPerFeed, "never")])
def test_the_assembler_check_runs_each_hand_over_once_and_still_rejects_split_dependent_mistakes(
    mutant: type, direction: str
) -> None:
    """The event assembler check runs a split only if it hands the assembler other lines
    than an earlier split did: a mistake that depends on how lines are grouped into feeds
    is still found, with the verdict of a check that runs every split."""
    deduped = failed(lambda: checks.EVENT_ASSEMBLER.verify(mutant, own=False))
    assert deduped.verdict.kind in (K.WRONG_VALUE, K.MISSING) and deduped.verdict.direction == direction, str(deduped)
    every_split = dataclasses.replace(
        checks.EVENT_ASSEMBLER, same_calls=None, fixtures=lambda: [get_fixture(deduped.verdict.fixture)]
    )
    assert str(failed(lambda: every_split.verify(mutant, own=False))) == str(deduped)
    assert_smallest(deduped)


@pytest.mark.parametrize("profile", ["strict", "browser"])
def test_check_parser_accepts_a_right_parser_that_is_slow(profile: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The quadratic member is right, only slow: no check of outcomes may reject it (lesson 09
    measures it instead). SSEParser's agreement with the reference, read by read under every
    partition of every fixture, is tests/test_fastpath.py's."""
    checks.check_parser(functools.partial(ZOO["quadratic-rebuild"], profile), profile)
    out = capsys.readouterr().out
    assert out.startswith("Correct: your parser") and "refuses one 8 MiB chunk" in out


class TupleParser:
    """A learner's parser that returns (type, data) tuples and takes no options."""

    def __init__(self) -> None:
        self.parser = SSEParser("browser")

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        return [(e.type, e.data) for e in self.parser.feed(chunk)]

    def close(self) -> list[tuple[str, str]]:
        return [(e.type, e.data) for e in self.parser.close()]


def test_check_parser_accepts_tuples_and_skips_limits_it_cannot_set(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_parser(TupleParser, "browser")
    assert "limit fixtures skipped" in capsys.readouterr().out


class WholeChunkDecoder(SSEParser):
    """Copies each chunk into a buffer before parsing it: right events, unbounded memory."""

    def feed(self, chunk: bytes) -> list:
        buffer = bytearray(chunk)
        return super().feed(bytes(buffer))


def test_a_guard_that_hands_the_text_to_its_splitter_first_is_refused() -> None:
    """The huge text starts with an LF: the splitter copies the long line after it, and the check sees it held."""
    message = rejection(lambda: ex05.check_line_limit(LimitAfterSplitting))
    assert "MISSING ERROR (none raised): LineTooLong came only after holding" in message
    assert "'\\nxxxxxxxxxxx'..." in message, message
    for before, after in ex05.HUGE_TEXT_SPLITS:
        text = "x" * before + "\n" + "x" * after
        guard = learner_code.LineLimit(max_line_chars=checks.HUGE_LIMIT)
        assert checks.refuses_huge_chunk(guard, "it", text).startswith("and refuses")


@pytest.mark.parametrize("reads", ex05.completed_cases())
def test_line_limit_completed_lines_after_a_crlf_cut_by_the_reads(reads: tuple[str, ...]) -> None:
    """Counting the LF of a CRLF as one more line end hands the refused line over as completed."""
    ex05.check_completed(learner_code.LineLimit, reads)
    if reads[1].startswith("\n") and reads[1].endswith("\n"):  # the CRLF's LF starts the read, the long line ends in it
        failure = failed(lambda: ex05.check_completed(LimitAfterSplitting, reads))
        assert_headline(failure, K.WRONG_VALUE, "state")
        assert "LineTooLong should carry the lines completed before the long line" in str(failure)


def test_huge_chunk_must_be_refused_before_buffering() -> None:
    message = rejection(lambda: checks.check_parser(functools.partial(WholeChunkDecoder, "browser"), "browser"))
    assert "LineTooLong came only after holding" in message
    unbounded = ZOO["line-limit-at-line-end"]("strict", max_line_chars=checks.HUGE_LIMIT)
    with pytest.raises(AssertionError, match="feed\\(\\) returned"):
        checks.refuses_huge_chunk(unbounded, "it")


class CrWaitsThenFlushes(CrWaits):
    """Holds a read's final CR until the next read, and ends the line at close():
    the totals are right, only the timing is wrong."""

    def close(self) -> list[str]:
        if not self.buffer.endswith("\r"):
            return super().close()
        line, self.buffer = self.buffer[:-1], ""
        return [line]


class EventsAtClose(SSEParser):
    """Returns every event from close(): right totals, nothing while streaming."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held: list = []

    def feed(self, chunk: bytes) -> list:
        self.held += super().feed(chunk)
        return []

    def close(self) -> list:
        return self.held + super().close()


def test_events_held_back_for_a_later_read_are_rejected() -> None:
    crlf = get_fixture("line_ends/crlf")
    late = lambda: compose("strict", splitter=CrWaitsThenFlushes())  # noqa: E731
    assert find_failure(late, crlf) is None, "the totals alone should not catch it"
    message = rejection(lambda: checks.check_line_splitter(CrWaitsThenFlushes))
    assert "is wrong: MISSING (late): " in message
    assert_shows_split(message)
    message = rejection(lambda: checks.check_parser(EventsAtClose))
    assert "is wrong: MISSING (late): " in message


class Stub:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def feed(self, value: Any) -> Any:
        raise NotImplementedError

    def close(self) -> Any:
        raise NotImplementedError


class HalfDone(Decoder):
    """feed written, close still a stub: not attempted either."""

    def close(self) -> str:
        raise NotImplementedError


def stub_function(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError


@pytest.mark.parametrize(
    "check, stub",
    [
        (checks.check_parser, Stub),
        (ex02.check_decoder, Stub),
        (ex02.check_decoder, HalfDone),
        (checks.check_line_splitter, Stub),
        (checks.check_event_assembler, Stub),
        (ex05.check_line_limit, Stub),
        (checks.check_json_adapter, Stub),
        (checks.check_payloads, Stub),
        (ex02.check_safe_cut, stub_function),
        (ex03.check_byte_lines, Stub),
        (ex04.check_encoder, stub_function),
        (ex06.check_named_events, Stub),
    ],
)
def test_stub_is_not_attempted_and_does_not_raise(
    check: Callable[[Any], None], stub: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    check(stub)
    assert capsys.readouterr().out.startswith("Not attempted yet: ")


@pytest.mark.parametrize("name", ["json-error-leaks", "empty-data-skipped"])
def test_json_adapter_check_rejects_payload_zoo(name: str) -> None:
    assert_shows_split(rejection(lambda: checks.check_json_adapter(PAYLOAD_ZOO[name])))


def test_payload_pipeline_check_rejects_per_chunk_json(capsys: pytest.CaptureFixture[str]) -> None:
    message = rejection(lambda: checks.check_payloads(PAYLOAD_ZOO["per-chunk-json"]))
    assert_shows_split(message) and " | " in message
    checks.check_payloads(lambda **config: checks.AdapterPipeline(JSONPayloads(**config)))
    checks.check_json_adapter(JSONPayloads)
    assert capsys.readouterr().out.count("Correct: ") == 2


def test_generated_streams_are_seeded_and_varied() -> None:
    streams = [fixture.raw for fixture in inputs.generated_fixtures()]
    assert streams == [fixture.raw for fixture in inputs.generated_fixtures.__wrapped__()]
    for needle in (b"\r", b"\r\n", b"\xef\xbb\xbf", b"event", b"retry", b"id"):
        assert any(needle in raw for raw in streams), needle
    assert any(fixture.expected["strict"].error for fixture in inputs.generated_fixtures())


# --- the transfer exercises' checks -------------------------------------------


def hold_last_lead_only(buffer: bytes) -> int:
    """Holds a lead byte at the very end, forgetting one followed by part of its character."""
    return len(buffer) - 1 if buffer and buffer[-1] >= 0xC0 else len(buffer)


@pytest.mark.parametrize(
    "mutant, says", [(hold_last_lead_only, "too high"), (cut_never_holds, "too high"), (lambda b: 0, "too low")]
)
def test_safe_cut_check_rejects_wrong_cuts_with_the_shortest_buffer(mutant: Callable[[bytes], int], says: str) -> None:
    failure = failed(lambda: ex02.check_safe_cut(mutant))
    message = str(failure)
    assert_headline(failure, Kind.WRONG_VALUE, says)
    shown = message.split("safe_cut(", 1)[1].split(") should", 1)[0]
    failing = [b for b in ex02.safe_cut_cases() if mutant(b) not in ex02.safe_cuts(b)]
    assert shown == repr(failing[0])


def test_safe_cut_check_rejects_a_lead_byte_held_before_a_byte_that_cannot_continue_it() -> None:
    """A byte that can never be part of a character (C0, C1, F5-FF) is no continuation byte: a cut that skips it
    holds the lead byte before it, which no later byte can complete. The check tries every lead byte before one."""
    cases = ex02.safe_cut_cases()
    for buffer in (b"\xe2\xff", b"\xe2\xf8", b"\xe2\xc0", b"\xf0\x9f\xff"):
        assert buffer in cases and cut_skips_invalid_bytes(buffer) not in ex02.safe_cuts(buffer), buffer
    failure = failed(lambda: ex02.check_safe_cut(cut_skips_invalid_bytes))
    assert_headline(failure, Kind.WRONG_VALUE, "too low")
    assert "safe_cut(b'\\xe0\\xc0') should be 2 or 1, yours is 0: b'\\xe0\\xc0' would be held, but no later" in str(
        failure
    ), str(failure)


def safe_cut_by_the_table(buffer: bytes) -> int:
    """Lesson 02's table: C0, C1 and F5-FF never start a character, so they are never held."""
    for back in range(1, min(3, len(buffer)) + 1):
        lead = buffer[-back]
        if not 0x80 <= lead <= 0xBF:
            promised = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 1
            return len(buffer) - back if promised > back else len(buffer)
    return len(buffer)


#: Lead bytes that allow only part of 80-BF after them (the rest would be over-long, a surrogate or past U+10FFFF).
SECOND_BYTES = {0xE0: range(0xA0, 0xC0), 0xED: range(0x80, 0xA0), 0xF0: range(0x90, 0xC0), 0xF4: range(0x80, 0x90)}


def cut_by_the_second_byte(second_bytes: dict[int, range]) -> Callable[[bytes], int]:
    """The table's cut, but held bytes whose second byte ``second_bytes`` does not allow after their lead byte
    (E0 80) are left to the decoder now, as a strict decoder reports them at once."""

    def safe_cut(buffer: bytes) -> int:
        cut = safe_cut_by_the_table(buffer)
        held = buffer[cut:]
        return len(buffer) if len(held) > 1 and held[1] not in second_bytes.get(held[0], range(0x80, 0xC0)) else cut

    return safe_cut


safe_cut_by_the_second_byte = cut_by_the_second_byte(SECOND_BYTES)

#: Second-byte ranges a learner may get wrong: each lets a valid character's start (E0 A0 is U+0800's) reach the
#: decoder before its last bytes, so that a read ending there breaks valid text.
WRONG_SECOND_BYTES = {
    "E0-and-ED-swapped": {**SECOND_BYTES, 0xE0: SECOND_BYTES[0xED], 0xED: SECOND_BYTES[0xE0]},
    **{
        f"{lead:X}-{edge}-off-by-one": {**SECOND_BYTES, lead: narrowed}
        for lead, allowed in SECOND_BYTES.items()
        for edge, narrowed in (("low", allowed[1:]), ("high", allowed[:-1]))
    },
}


@pytest.mark.parametrize("second_bytes", WRONG_SECOND_BYTES.values(), ids=WRONG_SECOND_BYTES)
def test_safe_cut_check_rejects_a_wrong_second_byte_range(second_bytes: dict[int, range]) -> None:
    """A valid start of a character held by the right ranges and not by the wrong ones is among the check's
    buffers, for the edges of every narrowed range."""
    failure = failed(lambda: ex02.check_safe_cut(cut_by_the_second_byte(second_bytes)))
    assert_headline(failure, Kind.WRONG_VALUE, "too high")


def test_safe_cut_check_shows_the_valid_start_a_swapped_range_breaks() -> None:
    message = str(failed(lambda: ex02.check_safe_cut(cut_by_the_second_byte(WRONG_SECOND_BYTES["E0-and-ED-swapped"]))))
    assert "safe_cut(b'\\xe0\\xa0') should be 0, yours is 2" in message, message


@pytest.mark.parametrize("safe_cut", [learner_code.safe_cut, safe_cut_by_the_table, safe_cut_by_the_second_byte])
def test_safe_cut_check_accepts_the_rule(safe_cut: Callable[[bytes], int], capsys: pytest.CaptureFixture[str]) -> None:
    """Holding C0, C1 and F5-F7 by their bit patterns (learner_code) or never (the table) both pass, and so does
    not holding E0 80, which no later byte can make valid (exercise 02's ask-first question)."""
    assert learner_code.safe_cut(b"data: \xc0") == 6 and safe_cut_by_the_table(b"data: \xc0") == 7
    assert safe_cut_by_the_table(b"ok \xe0\x80") == 3 and safe_cut_by_the_second_byte(b"ok \xe0\x80") == 5
    assert safe_cut_by_the_second_byte(b"ok \xe0\xa0") == 3  # E0 A0 may still become a character: held
    ex02.check_safe_cut(safe_cut)
    assert capsys.readouterr().out.startswith("Correct: ")


@pytest.mark.parametrize("mutant, kind", [(LfAfterCrKept, (K.EXTRA, "more")), (ByteCrWaits, (K.MISSING, "late"))])
def test_byte_lines_check_rejects_mistakes_shrunk(mutant: type, kind: tuple) -> None:
    failure = failed(lambda: ex03.check_byte_lines(mutant))
    assert_headline(failure, *kind)
    assert_shows_split(str(failure))
    assert_smallest(failure)


def test_encoder_check_accepts_a_right_encoder(capsys: pytest.CaptureFixture[str]) -> None:
    ex04.check_encoder(encoder())
    assert capsys.readouterr().out.startswith("Correct: ")


def test_encoder_check_rejects_refusing_an_event_type_with_nul() -> None:
    """Only an id holding NUL is ignored by a parser; an event type holding NUL travels, and must be encoded."""
    assert any("\0" in (case.get("event") or "") for case in ex04.encode_cases())
    failure = failed(lambda: ex04.check_encoder(encoder(type_refuses="\r\n\0")))
    assert_headline(failure, K.WRONG_ERROR, "unexpected")
    assert "event='\\x00'" in str(failure), str(failure)


@pytest.mark.parametrize("sent", ex04.ENCODE_REFUSED, ids=repr)
def test_encoder_check_asks_for_each_refusal(sent: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoder right but for one value a parser would read otherwise (a line end or NUL in a field, a retry
    parse_retry would not give back) is refused, naming that call. Only the refusals run: no round trips."""
    right = encoder()

    def sends_it(data: str, event: str | None = None, id: str | None = None, retry: Any = None) -> bytes:
        given = {"data": data, "event": event, "id": id, "retry": retry}
        if {name: value for name, value in given.items() if value is not None} == sent:
            return "".join(f"{name}: {value}\n" for name, value in given.items() if value is not None).encode(
                "utf-8", "surrogatepass"
            )
        return right(data, event, id, retry)

    monkeypatch.setattr(ex04, "encode_cases", list)
    failure = failed(lambda: ex04.check_encoder(sends_it))
    assert_headline(failure, K.MISSING_ERROR, "none raised")
    called = next(line for line in str(failure).splitlines() if "should raise ValueError" in line)
    assert all(f"{name}={value!r}" in called for name, value in sent.items()), str(failure)


@pytest.mark.parametrize(
    "mutant, kind",
    [
        (NoEndRequired, (K.MISSING_ERROR, "none raised")),
        (JsonLeaks, (K.WRONG_ERROR, "other class")),
        (UnknownTypesRefused, (K.WRONG_ERROR, "unexpected")),
    ],
)
def test_named_events_check_rejects_mistakes_shrunk(mutant: type, kind: tuple) -> None:
    failure = failed(lambda: ex06.check_named_events(mutant))
    assert_headline(failure, *kind)
    assert_smallest(failure)


@pytest.mark.parametrize("about, feeds", ex06.NUMBERED_FEEDS)
def test_named_events_check_reads_the_event_number_across_feeds(about: str, feeds: tuple[bytes, ...]) -> None:
    """The task asks for the event's number among all the events fed: a count restarted per feed is refused."""
    failure = failed(lambda: ex06.check_event_number(CountsPerFeed, about, feeds))
    assert_headline(failure, K.WRONG_VALUE, "state")
    assert "its number among all the events fed" in str(failure) and "feed 2: " in str(failure)
    ex06.check_event_number(learner_code.NamedEvents, about, feeds)


def test_named_events_check_accepts_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    ex06.check_named_events(learner_code.NamedEvents)
    assert capsys.readouterr().out.startswith("Correct: ")


def test_a_profile_added_to_the_profiles_reaches_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Profiles come from one place: a profile added there is run by every check that runs in all of them."""
    from dataclasses import replace

    from sse_course import profiles

    fixtures = ex02.DECODER.fixtures()[:2]  # read before: the fixture files expect the shipped profiles
    monkeypatch.setitem(profiles.PROFILES, "lenient", profiles.Profile("lenient", "replace", True, "a test's profile"))
    few = replace(ex02.DECODER, fixtures=lambda: fixtures)
    assert "(profiles strict and browser and lenient)" in few.verify(learner_code.Decoder)
    assert "lenient" in ex05.PIPELINE_CHECKS[-1].run_profiles


def test_the_checks_import_without_ipywidgets() -> None:
    """A check runs where no widget can (a script, the progress report's kernel): it needs no ipywidgets."""
    import subprocess
    import sys

    exercises = [f"exercises.{name}" for name in MODULES.values()]
    modules = ", ".join(f"sse_course.classroom.{name}" for name in ("checks", "resume", "blocks", "zoo", *exercises))
    code = f"import sys, {modules}; print('ipywidgets' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"
