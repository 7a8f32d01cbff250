"""SSEParser: the public contract, the two profiles, and nothing lost on error."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

import sse_course
import sse_course.errors
from sse_course import (
    Comment,
    DecodeError,
    Event,
    EventTooLarge,
    IncompleteStream,
    LayeredSSEParser,
    LineTooLong,
    ParseLimitError,
    ParserClosed,
    PayloadError,
    SSEError,
    SSEParser,
    aiter_events,
    iter_events,
)
from sse_course.decoding import Utf8Decoder
from sse_course.errors import DEFAULT_MAX_LINE_CHARS
from sse_course.layered import SLICE_BYTES
from sse_course.lines import LineSplitter


def test_public_names_and_error_hierarchy() -> None:
    for name in ["SSEError", "DecodeError", "ParseLimitError", "LineTooLong", "EventTooLarge", "IncompleteStream"]:
        assert getattr(sse_course, name) is getattr(sse_course.errors, name)
    assert issubclass(SSEError, ValueError)
    for cls in (DecodeError, ParseLimitError, IncompleteStream, ParserClosed):
        assert issubclass(cls, SSEError)
    assert issubclass(LineTooLong, ParseLimitError) and issubclass(EventTooLarge, ParseLimitError)
    assert issubclass(PayloadError, ValueError) and not issubclass(PayloadError, SSEError)


def test_feed_returns_events_completed_by_that_chunk() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: a\n") == []
    assert parser.feed(b"\ndata: b\n\ndata: c") == [Event("message", "a"), Event("message", "b")]
    assert parser.feed(b"\n\n") == [Event("message", "c")]
    assert parser.close() == []


def test_cr_ending_a_chunk_dispatches_without_waiting() -> None:
    parser = SSEParser()
    parser.feed(b"data: a\r")
    assert parser.feed(b"\r") == [Event("message", "a")]


def test_unknown_profile_is_refused() -> None:
    with pytest.raises(ValueError, match="profile must be one of"):
        SSEParser("lenient")  # type: ignore[arg-type]


@pytest.mark.parametrize("chunk", ["data: x\n\n", 5, None, [b"x"]])
def test_non_bytes_chunk_is_a_type_error_naming_the_type(chunk) -> None:
    with pytest.raises(TypeError, match=type(chunk).__name__):
        SSEParser().feed(chunk)


def test_bytearray_and_memoryview_are_bytes() -> None:
    parser = SSEParser()
    assert parser.feed(bytearray(b"data: a\n\n")) + parser.feed(memoryview(b"data: b\n\n")) == [
        Event("message", "a"),
        Event("message", "b"),
    ]


@pytest.mark.parametrize("parser_class", [SSEParser, LayeredSSEParser])
def test_error_carries_events_of_the_same_feed(parser_class: type[LayeredSSEParser]) -> None:
    parser = parser_class()
    with pytest.raises(DecodeError) as caught:
        parser.feed(b"data: a\n\ndata: b\n\ndata: \xff\n\n")
    assert caught.value.events == [Event("message", "a"), Event("message", "b")]
    assert caught.value.offset == 24


def test_error_at_close_carries_events_and_keeps_state() -> None:
    parser = SSEParser()
    parser.feed(b"id: 1\ndata: a\n\nid: 2\ndata: b")
    with pytest.raises(IncompleteStream, match="inside a line"):
        parser.close()
    assert parser.last_event_id == "1"


def test_limit_error_inside_one_huge_chunk_stops_early() -> None:
    parser = LayeredSSEParser(max_line_chars=100)
    chunk = b"data: ok\n\ndata: " + b"x" * (50 * SLICE_BYTES)
    with pytest.raises(LineTooLong) as caught:
        parser.feed(chunk)
    assert caught.value.events == [Event("message", "ok")]
    splitter, decoder = parser.splitter, parser.decoder
    assert isinstance(splitter, LineSplitter) and isinstance(decoder, Utf8Decoder)  # the parser's own stages
    assert len(splitter.partial) <= 100
    assert decoder.offset <= SLICE_BYTES  # the rest of the chunk was never decoded


@pytest.mark.parametrize("profile", ["strict", "browser"])
def test_spent_after_error_or_close(profile: str) -> None:
    parser = SSEParser(profile, max_line_chars=3)
    with pytest.raises(LineTooLong):
        parser.feed(b"data: x\n\n")
    with pytest.raises(ParserClosed, match="LineTooLong"):
        parser.feed(b"data: y\n\n")
    closed = SSEParser(profile)
    closed.close()
    with pytest.raises(ParserClosed, match=r"close\(\) was called"):
        closed.feed(b"")
    with pytest.raises(ParserClosed):
        closed.close()


def test_browser_profile_discards_unfinished_event_and_replaces_bad_bytes() -> None:
    parser = SSEParser("browser")
    assert parser.feed(b"data: a\xff\n\ndata: b") == [Event("message", "a\ufffd")]
    assert parser.close() == []


def test_last_event_id_and_retry_properties() -> None:
    parser = SSEParser()
    parser.feed(b"retry: 250\nid: 7\n\n")
    assert (parser.last_event_id, parser.retry) == ("7", 250)


@pytest.mark.parametrize("parser_class", [SSEParser, LayeredSSEParser])
@pytest.mark.parametrize("value", ["a\x00b", "a\nb", "a\rb", "a\ud800b"])
def test_a_starting_last_event_id_no_stream_could_set_is_refused(parser_class: type, value: str) -> None:
    """An ``id`` with NUL is ignored, a line cannot hold CR or LF, and UTF-8 never decodes to a surrogate
    (nor does one encode, for the ``Last-Event-ID`` header)."""
    with pytest.raises(ValueError, match="last_event_id"):
        parser_class(last_event_id=value)


def test_iter_events_yields_carried_events_before_raising() -> None:
    seen = []
    with pytest.raises(DecodeError):
        for event in iter_events([b"data: a\n", b"\ndata: b\n\n\xff"]):
            seen.append(event.data)
    assert seen == ["a", "b"]


def test_iter_events_passes_options() -> None:
    with pytest.raises(LineTooLong):
        list(iter_events([b"data: abc\n\n"], max_line_chars=4))
    assert list(iter_events([b"data: a\n\ndata: b"], profile="browser")) == [Event("message", "a")]


def test_events_from_reads_to_the_end_and_spends_the_parser() -> None:
    parser = SSEParser(comments=True)
    items = parser.events_from([b": hi\n", b"id: 7\nda", bytearray(b"ta: a\n\n"), memoryview(b"data: b")])
    assert next(items) == Comment("hi")
    assert parser.last_event_id == ""
    assert next(items) == Event("message", "a", "7")
    assert parser.last_event_id == "7"  # read between events, as a reconnecting client does
    with pytest.raises(IncompleteStream):
        next(items)  # close() came: an unfinished event in strict
    with pytest.raises(ParserClosed):
        parser.feed(b"\n\n")


@pytest.mark.parametrize("edge", [iter_events, aiter_events])
def test_edges_check_their_options_before_reading(edge: Callable[..., object]) -> None:
    """A bad option is the caller's mistake: it raises at the call, and no chunk is read."""
    with pytest.raises(ValueError, match="nope"):
        edge(Unread(), profile="nope")
    with pytest.raises(ValueError, match="max_line_chars"):
        edge(Unread(), max_line_chars=0)


class Unread:
    """Chunks that must not be read, sync or async."""

    def __iter__(self) -> Iterator[bytes]:
        raise AssertionError("a chunk was read")

    def __aiter__(self) -> AsyncIterator[bytes]:
        raise AssertionError("a chunk was read")


async def _chunks(*chunks: bytes):
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


def test_aiter_events() -> None:
    async def collect() -> list[Event]:
        return [event async for event in aiter_events(_chunks(b"data: \xf0\x9f", b"\x98\x80\r", b"\r"))]

    assert asyncio.run(collect()) == [Event("message", "\U0001f600")]


def test_aiter_events_yields_carried_events_then_raises() -> None:
    async def collect(seen: list[str]) -> None:
        async for event in aiter_events(_chunks(b"data: a\n\ndata: b\n")):
            seen.append(event.data)

    seen: list[str] = []
    with pytest.raises(IncompleteStream):
        asyncio.run(collect(seen))
    assert seen == ["a"]


def test_layer_error_without_completed_output_loses_nothing_else() -> None:
    """A layer (say, a learner's) may raise without saying what it completed."""

    class Refusing:
        def feed(self, text: str) -> list[str]:
            raise IncompleteStream("refused")

        def close(self) -> list[str]:
            return []

    parser = LayeredSSEParser(splitter=Refusing())
    with pytest.raises(IncompleteStream) as caught:
        parser.feed(b"x")
    assert caught.value.events == []


def test_edges_build_sseparser_with_the_options(monkeypatch) -> None:
    """iter_events / aiter_events build SSEParser with the options they are given."""
    import sse_course.parser

    built = []

    class Recording(sse_course.parser.SSEParser):
        def __init__(self, *args, **kwargs) -> None:
            built.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(sse_course.parser, "SSEParser", Recording)
    assert list(iter_events([b"data: a\n\n"], profile="browser")) == [Event("message", "a")]
    assert asyncio.run(_first(aiter_events(_chunks(b"data: b\n\n"), max_line_chars=9))) == Event("message", "b")
    assert [built[0]["profile"], built[1]["profile"]] == ["browser", "strict"]
    assert [built[0]["max_line_chars"], built[1]["max_line_chars"]] == [DEFAULT_MAX_LINE_CHARS, 9]


async def _first(events):
    async for event in events:
        return event
