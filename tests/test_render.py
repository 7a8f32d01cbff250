"""The explorers' pure renderings: byte roles, cuts, layer states, outcomes, escaping."""

from __future__ import annotations

import html
import re

from sse_course import Event
from sse_course.classroom.render import (
    LAYER_COLUMNS,
    ROLE_COLOURS,
    byte_roles,
    render_explorer,
    render_outcomes,
    render_split,
    render_states,
    snapshots,
)

EMOJI_EVENT = "data: 👋\n\n".encode()  # the emoji is bytes 6..9
INSIDE_EMOJI = 8
CRLF_EVENT = b"data: x\r\n\r\n"
BETWEEN_CR_AND_LF = 8

CELL = re.compile(r'title="byte (\d+): 0x([0-9A-F]{2}), [^"]*"[^>]*background:(#[0-9a-f]{6})')


def cells(rendered: str) -> list[tuple[int, str, str]]:
    """(offset, hex, background colour) of every byte cell, in drawing order."""
    return [(int(i), hx, colour) for i, hx, colour in CELL.findall(rendered)]


class PerChunkDecoder:
    """The naive parser lesson 01 shows failing: decode each chunk on its own."""

    def __init__(self) -> None:
        self.text = ""

    def feed(self, chunk: bytes) -> list[Event]:
        self.text += chunk.decode("utf-8")
        *blocks, self.text = self.text.split("\n\n")
        return [Event("message", block.removeprefix("data: ")) for block in blocks]

    def close(self) -> list[Event]:
        return []


def test_byte_roles_of_each_kind() -> None:
    raw = b"a" + "€".encode() + b"\r\n" + b"\x80" + b"\xf0\x9f"
    assert byte_roles(raw) == [
        "ascii",
        "lead", "continuation", "continuation",
        "cr", "lf",
        "invalid",  # a continuation byte with no lead byte
        "invalid", "invalid",  # a four-byte lead cut off by the end of the input
    ]  # fmt: skip


def test_every_byte_cell_has_its_role_colour_in_order() -> None:
    raw = "é\r\n€x".encode() + b"\xff"
    drawn = cells(render_split(raw, [1]))
    assert [i for i, _, _ in drawn] == list(range(len(raw)))
    assert [hx for _, hx, _ in drawn] == [f"{b:02X}" for b in raw]
    assert [colour for _, _, colour in drawn] == [ROLE_COLOURS[r] for r in byte_roles(raw)]


def test_cuts_are_drawn_between_the_right_bytes() -> None:
    rendered = render_split(EMOJI_EVENT, [INSIDE_EMOJI, 3])
    assert re.findall(r'data-cut="(\d+)"', rendered) == ["3", str(INSIDE_EMOJI)]
    for cut in (3, INSIDE_EMOJI):
        marker = rendered.index(f'data-cut="{cut}"')
        assert rendered.index(f'title="byte {cut - 1}:') < marker < rendered.index(f'title="byte {cut}:')
    assert "chunk 3" in rendered and "chunk 4" not in rendered


def test_a_repeated_cut_draws_an_empty_chunk() -> None:
    rendered = render_split(b"abcd", [2, 2])
    assert rendered.count('class="cut"') == 2
    assert "chunk 2 · empty" in rendered


def test_text_is_escaped_and_control_characters_are_visible() -> None:
    raw = b'data: <b>&"x"\r\n\r\n'
    for rendered in (render_split(raw, [3]), render_states(raw, [10]), render_outcomes(raw, [10], {})):
        assert "<b>&" not in rendered
    split = render_split(raw, [3])
    assert "&lt;" in split and "&amp;" in split and "\\r" in split and "\\n" in split
    assert html.escape(repr("data: <b>&")) in render_states(raw, [10])


def test_states_for_a_split_inside_an_emoji() -> None:
    first, second, closing = snapshots(EMOJI_EVENT, [INSIDE_EMOJI])
    assert (first.text, first.state["pending bytes"], first.events) == ("data: ", b"\xf0\x9f", [])
    assert first.state["partial line"] == "data: "
    assert (second.text, second.state["pending bytes"]) == ("👋\n\n", b"")
    assert second.lines == ["data: 👋", ""]
    assert second.events == [Event("message", "👋")]
    assert closing.label == "close()" and closing.events == []
    rendered = render_states(EMOJI_EVENT, [INSIDE_EMOJI], layers=["decoder"])
    assert html.escape(repr(b"\xf0\x9f")) in rendered
    assert "skip_lf" not in rendered  # only the chosen layer's columns


def test_states_for_a_split_between_cr_and_lf() -> None:
    first, second, _ = snapshots(CRLF_EVENT, [BETWEEN_CR_AND_LF])
    assert first.lines == ["data: x"], "the CR ends the line without waiting for the next chunk"
    assert first.state["skip_lf"] is True and first.state["data_lines"] == ["x"]
    assert second.lines == [""], "the LF after the CR is skipped, not read as a blank line"
    assert second.state["skip_lf"] is False and second.events == [Event("message", "x")]
    rendered = render_states(CRLF_EVENT, [BETWEEN_CR_AND_LF], layers=["lines"])
    header = re.findall(r"<th>([^<]*)</th>", rendered)
    assert header == ["step", "chunk", *LAYER_COLUMNS["lines"], "events out"]
    first_row = rendered.split("<tr>")[1]
    assert "True" in first_row and html.escape(repr(["data: x"])) in first_row


def test_an_error_is_shown_as_text_and_ends_the_table() -> None:
    steps = snapshots(b"data: a\n\ndata: \xff\n\n", [3])
    assert steps[-1].label == "chunk 2"
    assert steps[-1].error == "DecodeError: invalid UTF-8 at byte 15: b'\\xff' (invalid start byte)"
    assert steps[-1].events == [Event("message", "a")], "events completed before the error are shown"
    rendered = render_states(b"data: a\n\ndata: \xff\n\n", [3])
    assert html.escape(steps[-1].error) in rendered and "close()" not in rendered


def test_outcomes_show_a_naive_parser_failing_inside_an_emoji() -> None:
    rendered = render_outcomes(EMOJI_EVENT, [INSIDE_EMOJI], {"decode each chunk": PerChunkDecoder})
    assert "decode each chunk" in rendered and "differs" in rendered
    assert "UnicodeDecodeError" in rendered
    assert html.escape(repr("👋")) in rendered  # the package's event


def test_outcomes_agree_where_the_naive_parser_happens_to_work() -> None:
    rendered = render_outcomes(EMOJI_EVENT, [3], {"decode each chunk": PerChunkDecoder})
    assert "same as sse_course" in rendered and "differs" not in rendered


def test_explorer_puts_the_parts_together_and_honours_options() -> None:
    rendered = render_explorer(b"data: abcdef\n\n", [4], layers=["lines"], max_line_chars=5)
    assert 'class="split"' in rendered and 'class="states"' in rendered and 'class="outcomes"' not in rendered
    assert "LineTooLong" in rendered
    assert 'class="states"' not in render_explorer(b"ab", [1], layers=[])
