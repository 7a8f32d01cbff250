"""Every check tells right from wrong: it rejects every zoo member wrong for its
layer with the smallest failing split, accepts the package's own code, and says
"not attempted yet" (without raising) for a stub."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

import pytest

from sse_course import SSEParser
from sse_course.classroom import checks
from sse_course.classroom.fixtures import get_fixture
from sse_course.classroom.harness import find_failure, on_boundary, without_range
from sse_course.classroom.zoo import PAYLOAD_ZOO, ZOO, CrWaits, compose, members
from sse_course.decoding import Utf8Decoder
from sse_course.events import EventAssembler, parse_retry, split_field
from sse_course.lines import LineSplitter
from sse_course.payloads import JSONPayloads

LAYER_CHECKS: dict[str, tuple[Callable[..., None], type]] = {
    "decoding": (checks.check_decoder, Utf8Decoder),
    "lines": (checks.check_line_splitter, LineSplitter),
    "events": (checks.check_event_assembler, EventAssembler),
    "limits": (checks.check_line_limit, LineSplitter),
}

#: The fixture lesson 07's solution gives (solutions/07-evidence.ipynb).
OWN_FIXTURE = {
    "about": "Spaces around an event type belong to it.",
    "input": "event:  add \ndata: x\n\n",
    "expect": {"events": [{"type": " add ", "data": "x"}]},
}


#: The direction each layer check must state for each zoo member (the first
#: word of its verdict), and the kind of difference it is.
DIRECTIONS = {
    "decode-each-chunk": ("EXTRA ERROR", "error"),
    "errors-ignore": ("MISSING ERROR", "error"),
    "bom-kept": ("MISSING", "missing"),
    "bom-dropped-per-chunk": ("EXTRA", "extra"),
    "offset-without-pending": ("WRONG VALUE", "offset"),
    "never-final": ("WRONG ERROR", "error"),
    "lf-only": ("LATE", "late"),
    "splitlines": ("EARLY", "early"),
    "cr-waits": ("LATE", "late"),
    "no-cr-then-lf": ("EARLY", "early"),
    "regex-order-wrong": ("EARLY", "early"),
    "skip-lf-lost-on-empty-read": ("EARLY", "early"),
    "lstrip-value": ("WRONG VALUE", "value"),
    "split-every-colon": ("WRONG VALUE", "value"),
    "sticky-event-type": ("WRONG VALUE", "value"),
    "event-type-stripped": ("WRONG VALUE", "value"),
    "dispatch-without-data": ("EXTRA", "extra"),
    "trailing-lf-kept": ("WRONG VALUE", "value"),
    "dispatch-at-eof": ("EXTRA", "extra"),
    "retry-int": ("WRONG VALUE", "value"),
    "id-with-nul": ("WRONG VALUE", "value"),
    "id-reset-per-event": ("WRONG VALUE", "value"),
    "eager-last-event-id": ("WRONG VALUE", "state"),
    "retry-reset-per-event": ("WRONG VALUE", "state"),
    "case-insensitive-names": ("WRONG VALUE", "value"),
    "line-limit-at-line-end": ("WRONG ERROR", "error"),
    "line-limit-in-bytes": ("EXTRA ERROR", "error"),
}


def rejection(check: Callable[[], None]) -> str:
    return str(failed(check))


def failed(check: Callable[[], None]) -> checks.CheckFailed:
    with pytest.raises(checks.CheckFailed) as caught:
        check()
    return caught.value


def assert_shows_split(message: str) -> None:
    assert "under the split" in message and "\n    b'" in message and "expected: " in message and "got: " in message, message


def assert_smallest(failure: checks.CheckFailed) -> None:
    """No cut can be dropped and no character deleted with the same difference left."""
    raw, cuts, kind = failure.raw, failure.cuts, failure.found.kind
    for i in range(len(cuts)):
        trial = failure.recheck(raw, cuts[:i] + cuts[i + 1 :])
        assert trial is None or trial.kind != kind, (raw, cuts, i)
    start = 0
    while start < len(raw):
        size = next(n for n in range(1, 5) if on_boundary(raw, start + n))
        shorter, moved = without_range(raw, cuts, start, size)
        trial = failure.recheck(shorter, moved) if shorter else None
        assert trial is None or trial.kind != kind, (raw, cuts, start)
        start += size


@pytest.mark.parametrize("name", [n for layer in LAYER_CHECKS for n in members(layer=layer)])
def test_layer_check_rejects_zoo_member_shrunk_in_the_right_direction(name: str) -> None:
    check, _ = LAYER_CHECKS[ZOO[name].layer]
    failure = failed(lambda: check(ZOO[name].part))
    word, kind = DIRECTIONS[name]
    message = str(failure)
    assert_shows_split(message)
    assert message.split(": ", 1)[1].startswith(word + ":") and failure.found.kind[0] == kind, message
    assert_smallest(failure)


def test_every_layer_member_has_its_direction_stated() -> None:
    assert set(DIRECTIONS) == {n for layer in LAYER_CHECKS for n in members(layer=layer)}


def test_decode_error_offset_counts_bytes_held_from_earlier_reads() -> None:
    """The issue's case: the bad byte at 6 follows two bytes held from read 1."""
    chunks = [b"data: \xf0\x9f", b"x\n\n"]
    expected = checks.reference_trace(b"".join(chunks), (8,), "strict", "{}")
    got = checks.trace(lambda: compose("strict", decoder=ZOO["offset-without-pending"].part()), chunks)
    assert expected.error == ("DecodeError", 6) and got.error == ("DecodeError", 8)
    found = checks.difference(expected, got)
    assert found.kind == ("offset",) and "DecodeError at byte 6 is right, your code says byte 8" in found.says


def test_last_event_id_is_compared_after_every_read() -> None:
    """The issue's case: the events agree, what a reconnecting client sends does not."""
    raw = b"id: 1\ndata: a\n\nid: 2\ndata: b"
    expected = checks.reference_trace(raw, (), "browser", "{}")
    got = checks.trace(lambda: compose("browser", assembler=ZOO["eager-last-event-id"].part(strict=False)), [raw])
    assert expected.items() == got.items() and expected.states[0][0] == "1" and got.states[0][0] == "2"
    assert checks.difference(expected, got).kind == ("state", "last_event_id")


def test_a_failure_shows_only_its_message_in_a_notebook() -> None:
    failure = failed(lambda: checks.check_line_splitter(ZOO["no-cr-then-lf"].part))
    assert failure._render_traceback_() == [f"CheckFailed: {failure}"]
    assert isinstance(failure, AssertionError)


@pytest.mark.parametrize("profile", ["strict", "browser"])
@pytest.mark.parametrize("name", members())
def test_check_parser_rejects_zoo_member(name: str, profile: str, capsys: pytest.CaptureFixture[str]) -> None:
    factory = functools.partial(ZOO[name], profile)
    if profile in ZOO[name].wrong_in:
        failure = failed(lambda: checks.check_parser(factory, profile))
        assert_shows_split(str(failure))
        kind = DIRECTIONS[name][1]
        if profile == "browser" and kind == "error" and ZOO[name].layer == "decoding":
            kind = "value"  # the browser profile raises no decoding error: U+FFFD changes the data
        assert failure.found.kind[0] == kind, str(failure)
        assert_smallest(failure)
    else:
        checks.check_parser(factory, profile)
        assert capsys.readouterr().out.startswith("Correct: your parser")


@pytest.mark.parametrize("layer", sorted(LAYER_CHECKS))
def test_layer_check_accepts_the_package(layer: str, capsys: pytest.CaptureFixture[str]) -> None:
    check, reference = LAYER_CHECKS[layer]
    check(reference)
    out = capsys.readouterr().out
    assert out.startswith("Correct: ") and "partitions" in out and "strict and browser" in out


@pytest.mark.parametrize("profile", ["strict", "browser"])
def test_check_parser_accepts_the_package_and_the_quadratic_member(profile: str, capsys: pytest.CaptureFixture[str]) -> None:
    for cls in (SSEParser, ZOO["quadratic-rebuild"]):
        checks.check_parser(functools.partial(cls, profile), profile)
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


def test_huge_chunk_must_be_refused_before_buffering() -> None:
    message = rejection(lambda: checks.check_parser(functools.partial(WholeChunkDecoder, "browser"), "browser"))
    assert "raised LineTooLong only after holding" in message
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
    assert "is wrong: LATE: " in message
    assert_shows_split(message)
    message = rejection(lambda: checks.check_parser(EventsAtClose))
    assert "is wrong: LATE: " in message


class Stub:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def feed(self, value: Any) -> Any:
        raise NotImplementedError

    def close(self) -> Any:
        raise NotImplementedError


class HalfDone(Utf8Decoder):
    """feed written, close still a stub: not attempted either."""

    def close(self) -> str:
        raise NotImplementedError


def stub_function(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError


@pytest.mark.parametrize(
    "check, stub",
    [
        (checks.check_parser, Stub),
        (checks.check_decoder, Stub),
        (checks.check_decoder, HalfDone),
        (checks.check_line_splitter, Stub),
        (checks.check_event_assembler, Stub),
        (checks.check_line_limit, Stub),
        (checks.check_json_adapter, Stub),
        (checks.check_payloads, Stub),
        (checks.check_split_finder, stub_function),
        (checks.check_own_fixture, stub_function),
        (checks.check_safe_cut, stub_function),
        (checks.check_byte_lines, Stub),
        (checks.check_encoder, stub_function),
        (checks.check_named_events, Stub),
    ],
)
def test_stub_is_not_attempted_and_does_not_raise(check: Callable[[Any], None], stub: Any, capsys: pytest.CaptureFixture[str]) -> None:
    check(stub)
    assert capsys.readouterr().out.startswith("Not attempted yet: ")


def test_fields_check_is_not_attempted_while_either_function_is_a_stub(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_fields(split_field, stub_function)
    checks.check_fields(stub_function, parse_retry)
    assert capsys.readouterr().out.count("Not attempted yet: ") == 2


@pytest.mark.parametrize("name", ["json-error-leaks", "empty-data-skipped"])
def test_json_adapter_check_rejects_payload_zoo(name: str) -> None:
    assert_shows_split(rejection(lambda: checks.check_json_adapter(PAYLOAD_ZOO[name])))


def test_payload_pipeline_check_rejects_per_chunk_json(capsys: pytest.CaptureFixture[str]) -> None:
    message = rejection(lambda: checks.check_payloads(PAYLOAD_ZOO["per-chunk-json"]))
    assert_shows_split(message) and " | " in message
    checks.check_payloads(lambda **config: checks.AdapterPipeline(JSONPayloads(**config)))
    checks.check_json_adapter(JSONPayloads)
    assert capsys.readouterr().out.count("Correct: ") == 2


def test_split_cases_break_where_they_should() -> None:
    """Each zoo parser in the lesson 01 cases breaks under some cut; SSEParser does not."""
    for name, profile, raw in checks.SPLIT_CASES:
        cut = checks.first_breaking_cut(checks._split_case_factory(name, profile), raw)
        assert (cut is None) == (name == ""), name


@pytest.mark.parametrize(
    "finder",
    [
        lambda factory, raw: None,
        lambda factory, raw: 1,
        lambda factory, raw: checks.first_breaking_cut(factory, raw[:-1]),
    ],
)
def test_split_finder_check_rejects_wrong_finders(finder: Callable[..., Any]) -> None:
    message = rejection(lambda: checks.check_split_finder(finder))
    assert "expected: " in message and " | " in message


def test_split_finder_check_accepts_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_split_finder(checks.first_breaking_cut)
    assert capsys.readouterr().out.startswith("Correct: ")


def test_own_fixture_accepted_when_right_and_catching(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_own_fixture(lambda: OWN_FIXTURE)
    out = capsys.readouterr().out
    assert out.startswith("Correct: ") and "which every shipped fixture misses" in out


def test_own_fixture_rejected_when_its_expectation_is_wrong() -> None:
    wrong = {**OWN_FIXTURE, "expect": {"events": [{"type": "add", "data": "x"}]}}
    message = rejection(lambda: checks.check_own_fixture(wrong))
    assert "your fixture expects: [('add'" in message and "the standard gives:   [(' add '" in message


def test_own_fixture_rejected_when_it_does_not_catch_the_target() -> None:
    message = rejection(lambda: checks.check_own_fixture({"input": "data: x\n\n", "expect": {"events": [{"data": "x"}]}}))
    assert "passes it under every split" in message


def test_own_fixture_rejected_when_malformed() -> None:
    assert "format" in rejection(lambda: checks.check_own_fixture({"input": "data: x\n\n"}))


def test_generated_streams_are_seeded_and_varied() -> None:
    streams = [fixture.raw for fixture in checks.generated_fixtures()]
    assert streams == [fixture.raw for fixture in checks.generated_fixtures.__wrapped__()]
    for needle in (b"\r", b"\r\n", b"\xef\xbb\xbf", b"event", b"retry", b"id"):
        assert any(needle in raw for raw in streams), needle
    assert any(fixture.expected["strict"].error for fixture in checks.generated_fixtures())


# --- the transfer exercises' checks -------------------------------------------


def hold_last_lead_only(buffer: bytes) -> int:
    """Holds a lead byte at the very end, forgetting one followed by part of its character."""
    return len(buffer) - 1 if buffer and buffer[-1] >= 0xC0 else len(buffer)


def never_holds(buffer: bytes) -> int:
    return len(buffer)


@pytest.mark.parametrize("mutant, says", [(hold_last_lead_only, "too MANY"), (never_holds, "too MANY"), (lambda b: 0, "too FEW")])
def test_safe_cut_check_rejects_wrong_cuts_with_the_shortest_buffer(mutant: Callable[[bytes], int], says: str) -> None:
    message = rejection(lambda: checks.check_safe_cut(mutant))
    assert says in message and "should be" in message
    shown = message.split("safe_cut(", 1)[1].split(") should", 1)[0]
    failing = [b for b in checks.safe_cut_cases() if mutant(b) != checks.whole_characters(b)]
    assert shown == repr(failing[0])


def test_safe_cut_check_accepts_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_safe_cut(checks.whole_characters)
    assert capsys.readouterr().out.startswith("Correct: ")


class ByteLinesForgettingCr(checks.LatinLines):
    def feed(self, chunk: bytes) -> list[bytes]:
        lines = super().feed(chunk)
        self.splitter.skip_lf = False
        return lines


class ByteLinesCrWaits:
    """Holds a chunk's final CR until the next chunk says whether an LF follows."""

    def __init__(self, strict: bool = True) -> None:
        self.lines, self.tail = checks.LatinLines(strict), b""

    def feed(self, chunk: bytes) -> list[bytes]:
        text = self.tail + chunk
        self.tail = b"\r" if text.endswith(b"\r") else b""
        return self.lines.feed(text.removesuffix(b"\r")) if text else []

    def close(self) -> list[bytes]:
        return self.lines.feed(self.tail) + self.lines.close()


@pytest.mark.parametrize("mutant, word", [(ByteLinesForgettingCr, "EXTRA"), (ByteLinesCrWaits, "LATE")])
def test_byte_lines_check_rejects_mistakes_shrunk(mutant: type, word: str) -> None:
    failure = failed(lambda: checks.check_byte_lines(mutant))
    assert f"is wrong: {word}: " in str(failure)
    assert_shows_split(str(failure))
    assert_smallest(failure)


def test_byte_lines_check_accepts_the_reference(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_byte_lines(checks.LatinLines)
    assert capsys.readouterr().out.startswith("Correct: ")


def lstripped(line: str) -> tuple[str, str]:
    name, _, value = line.partition(":")
    return name, value.lstrip()


def int_retry(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


@pytest.mark.parametrize("fields, shown", [((lstripped, parse_retry), "split_field('data:\\tx')"), ((split_field, int_retry), "parse_retry('+5')")])
def test_fields_check_rejects_each_function_on_its_shortest_case(fields: tuple, shown: str) -> None:
    message = rejection(lambda: checks.check_fields(*fields))
    assert shown in message and "WRONG VALUE" in message


def test_fields_check_accepts_the_package(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_fields(split_field, parse_retry)
    assert capsys.readouterr().out.startswith("Correct: ")


def encoder(space: str = " ", split: bool = True, refuse: bool = True) -> Callable[..., bytes]:
    """An encoder, right with the defaults; each argument switches one mistake on."""

    def encode(data: str, event: str | None = None, id: str | None = None, retry: int | None = None) -> bytes:
        fields = {"event": event, "id": id, "retry": retry}
        if refuse and ("\r" in data or any(v is not None and any(c in str(v) for c in "\r\n\0-") for v in fields.values())):
            raise ValueError("no stream can carry this")
        lines = [f"{name}:{space}{value}" for name, value in fields.items() if value is not None]
        lines += [f"data:{space}{line}" for line in (data.split("\n") if split else [data])]
        return ("\n".join(lines) + "\n\n").encode()

    return encode


@pytest.mark.parametrize("mutant, word", [(encoder(space=""), "WRONG VALUE"), (encoder(split=False), "WRONG VALUE"), (encoder(refuse=False), "MISSING ERROR")])
def test_encoder_check_rejects_mistakes(mutant: Callable[..., bytes], word: str) -> None:
    assert f"is wrong: {word}" in rejection(lambda: checks.check_encoder(mutant))


def test_encoder_check_accepts_a_right_encoder(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_encoder(encoder())
    assert capsys.readouterr().out.startswith("Correct: ")


class NoEndRequired(checks.NamedEventsReference):
    def close(self) -> list[str]:
        return []


class JsonLeaks(checks.NamedEventsReference):
    def field(self, event: Any, index: int, key: str) -> str:
        return json.loads(event.data)[key]


class UnknownTypesRefused(checks.NamedEventsReference):
    def feed(self, events: Any) -> list[str]:
        events = list(events)
        if any(event.type not in ("delta", "error", "done") for event in events):
            raise checks.ContractError("unknown event type")
        return super().feed(events)


@pytest.mark.parametrize("mutant, word", [(NoEndRequired, "MISSING ERROR"), (JsonLeaks, "WRONG ERROR"), (UnknownTypesRefused, "EXTRA ERROR")])
def test_named_events_check_rejects_mistakes_shrunk(mutant: type, word: str) -> None:
    failure = failed(lambda: checks.check_named_events(mutant))
    assert f"is wrong: {word}: " in str(failure)
    assert_smallest(failure)


def test_named_events_check_accepts_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    checks.check_named_events(checks.NamedEventsReference)
    assert capsys.readouterr().out.startswith("Correct: ")
