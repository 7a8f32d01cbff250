"""lines -> events: the standard's field and dispatch rules."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from sse_course.errors import EventTooLarge, IncompleteStream
from sse_course.events import Event, EventAssembler, parse_retry, split_field


def assemble(lines: list[str], **options: Any) -> list[Any]:  # Event, or Comment too with comments=True
    assembler = EventAssembler(**options)
    return assembler.feed(lines) + assembler.close()


def test_event_is_frozen_with_the_contract_fields() -> None:
    event = Event("message", "x", "1", 5)
    assert [f.name for f in dataclasses.fields(Event)] == ["type", "data", "last_event_id", "retry"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.data = "y"  # type: ignore[misc]


@pytest.mark.parametrize(
    "line,field",
    [
        ("data: x", ("data", "x")),
        ("data:x", ("data", "x")),
        ("data:  x", ("data", " x")),
        ("data:\tx", ("data", "\tx")),
        ("data: a: b", ("data", "a: b")),
        ("data", ("data", "")),
        ("data :x", ("data ", "x")),
        ("data: ", ("data", "")),
    ],
)
def test_split_field(line: str, field: tuple[str, str]) -> None:
    assert split_field(line) == field


@pytest.mark.parametrize("value,expected", [("0", 0), ("03000", 3000), ("5000", 5000)])
def test_retry_ascii_digits(value: str, expected: int) -> None:
    assert parse_retry(value) == expected


@pytest.mark.parametrize("value", ["", "+5", " 5", "5 ", "1_000", "-1", "1.5", "\u0663", "\u00b2", "\uff15", "5x"])
def test_retry_anything_else_is_ignored(value: str) -> None:
    assert parse_retry(value) is None


def test_python_int_would_accept_what_the_standard_refuses() -> None:
    """Why parse_retry does not call int() on its own: these all parse."""
    assert [int(v) for v in ["+5", " 5", "1_000", "\u0663", "\uff15"]] == [5, 5, 1000, 3, 5]
    assert "\u00b2".isdigit()


def test_data_lines_join_with_lf_and_empty_data_dispatches() -> None:
    assert assemble(["data: a", "data: b", "", "data:", ""]) == [Event("message", "a\nb"), Event("message", "")]


def test_no_data_no_event_but_id_commits_and_type_resets() -> None:
    events = assemble(["event: ping", "id: 9", "", "data: x", ""])
    assert events == [Event("message", "x", "9")]


def test_event_returned_by_the_feed_that_delivers_the_blank_line() -> None:
    assembler = EventAssembler()
    assert assembler.feed(["data: x"]) == []
    assert assembler.feed([""]) == [Event("message", "x")]


def test_last_event_id_is_committed_at_dispatch_only() -> None:
    assembler = EventAssembler()
    assembler.feed(["id: 1", "data: a", ""])
    assembler.feed(["id: 2", "data: b"])
    assert (assembler.id_buffer, assembler.last_event_id) == ("2", "1")


def test_id_with_nul_is_ignored() -> None:
    assert assemble(["id: 1", "id: a\x00b", "data: x", ""]) == [Event("message", "x", "1")]


def test_retry_persists_and_bogus_retry_keeps_it() -> None:
    events = assemble(["retry: 10", "", "retry: x", "data: a", "", "data: b", ""])
    assert [e.retry for e in events] == [10, 10]


def test_field_names_are_case_sensitive() -> None:
    assert assemble(["Data: x", "DATA: y", "Event: t", "data: z", ""]) == [Event("message", "z")]


def test_event_limit_counts_joined_data_and_keeps_earlier_events() -> None:
    assembler = EventAssembler(max_event_chars=3)
    with pytest.raises(EventTooLarge) as caught:
        assembler.feed(["data: ab", "", "data: a", "data: bc"])
    assert caught.value.completed == [Event("message", "ab")]


def test_open_block_at_close_strict_vs_browser() -> None:
    strict = EventAssembler()
    strict.feed(["data: x"])
    with pytest.raises(IncompleteStream):
        strict.close()
    browser = EventAssembler(strict=False)
    browser.feed(["data: x"])
    assert browser.close() == []


def test_comment_after_last_event_is_a_clean_end() -> None:
    assert assemble(["data: x", "", ": bye"]) == [Event("message", "x")]
