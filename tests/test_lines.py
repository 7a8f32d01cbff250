"""text -> lines: CR, LF, CRLF; a CR ends its line at once; nothing else ends a line."""

from __future__ import annotations

import pytest

from sse_course.errors import IncompleteStream, LineTooLong
from sse_course.lines import LineSplitter


def split_all(texts: list[str], **options) -> list[str]:
    splitter = LineSplitter(**options)
    return [line for text in texts for line in splitter.feed(text)] + splitter.close()


def test_three_line_ends() -> None:
    assert split_all(["a\nb\r\nc\rd\n"]) == ["a", "b", "c", "d"]


def test_cr_at_end_of_read_ends_the_line_immediately() -> None:
    splitter = LineSplitter()
    assert splitter.feed("data: x\r") == ["data: x"]


def test_lf_after_cr_in_next_read_is_skipped() -> None:
    splitter = LineSplitter()
    splitter.feed("a\r")
    assert splitter.feed("\nb\n") == ["b"]


def test_skip_lf_survives_empty_reads() -> None:
    splitter = LineSplitter()
    splitter.feed("a\r")
    assert splitter.feed("") == []
    assert splitter.feed("") == []
    assert splitter.feed("\n\n") == [""]


def test_only_one_lf_is_skipped() -> None:
    splitter = LineSplitter()
    splitter.feed("a\r")
    assert splitter.feed("\n") == []
    assert splitter.feed("\n") == [""]


def test_skip_lf_is_dropped_by_other_text() -> None:
    splitter = LineSplitter()
    splitter.feed("a\r")
    splitter.feed("b")
    assert splitter.feed("\n") == ["b"]


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])
def test_splitlines_characters_are_not_line_ends(char: str) -> None:
    text = f"a{char}b\n"
    assert len(text.splitlines()) == 2  # what the wrong tool does
    assert split_all([text]) == [f"a{char}b"]


def test_partial_line_across_reads() -> None:
    assert split_all(["da", "ta: ", "x\n"]) == ["data: x"]


def test_line_at_limit_passes_and_one_more_fails() -> None:
    assert split_all(["12345\n"], max_line_chars=5) == ["12345"]
    with pytest.raises(LineTooLong):
        split_all(["123456\n"], max_line_chars=5)


def test_limit_fires_before_the_line_end_and_keeps_earlier_lines() -> None:
    splitter = LineSplitter(max_line_chars=5)
    with pytest.raises(LineTooLong) as caught:
        splitter.feed("ok\n" + "x" * 1000)
    assert caught.value.completed == ["ok"]
    assert len(splitter.partial) <= 5  # the oversized text was never buffered


def test_limit_counts_across_reads() -> None:
    splitter = LineSplitter(max_line_chars=5)
    splitter.feed("123")
    with pytest.raises(LineTooLong):
        splitter.feed("456")


def test_unfinished_line_at_close_strict_vs_browser() -> None:
    strict = LineSplitter()
    strict.feed("data: x")
    with pytest.raises(IncompleteStream, match="7 characters"):
        strict.close()
    browser = LineSplitter(strict=False)
    browser.feed("data: x")
    assert browser.close() == []


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "10"])
def test_bad_limit_is_refused(bad) -> None:
    with pytest.raises(ValueError, match="max_line_chars"):
        LineSplitter(max_line_chars=bad)
