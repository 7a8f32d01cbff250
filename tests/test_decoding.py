"""bytes -> text: Utf8Decoder keeps split characters, drops one BOM, reports offsets."""

from __future__ import annotations

import pytest

from sse_course.decoding import Utf8Decoder
from sse_course.errors import DecodeError

EMOJI = "\U0001f600".encode()  # 4 bytes


def feed_all(decoder: Utf8Decoder, chunks: list[bytes]) -> str:
    return "".join(decoder.feed(chunk) for chunk in chunks) + decoder.close()


@pytest.mark.parametrize("cut", range(1, 4))
def test_character_split_at_every_byte_is_kept_whole(cut: int) -> None:
    decoder = Utf8Decoder()
    assert decoder.feed(b"a" + EMOJI[:cut]) == "a"
    assert decoder.pending == EMOJI[:cut]
    assert decoder.feed(EMOJI[cut:]) == "\U0001f600"
    assert decoder.pending == b""


def test_bom_split_over_three_reads_is_dropped_once() -> None:
    decoder = Utf8Decoder()
    text = feed_all(decoder, [b"\xef", b"\xbb", b"\xbf", b"\xef\xbb\xbfx"])
    assert text == "\ufeffx"


def test_bom_after_first_character_is_kept() -> None:
    assert feed_all(Utf8Decoder(), [b"x\xef\xbb\xbf"]) == "x\ufeff"


def test_bom_survives_empty_reads_before_it() -> None:
    assert feed_all(Utf8Decoder(), [b"", b"", b"\xef\xbb\xbfa"]) == "a"


def test_strict_error_has_absolute_offset_and_bad_bytes() -> None:
    decoder = Utf8Decoder()
    decoder.feed(b"0123456789")
    decoder.feed(b"ab\xf0\x9f")  # pending: the offending sequence starts at 12
    with pytest.raises(DecodeError) as caught:
        decoder.feed(b"x")
    err = caught.value
    assert (err.offset, err.bad_bytes, err.reason) == (12, b"\xf0\x9f", "invalid continuation byte")
    assert str(err) == "invalid UTF-8 at byte 12: b'\\xf0\\x9f' (invalid continuation byte)"


def test_strict_error_carries_the_valid_text_before_it() -> None:
    decoder = Utf8Decoder()
    with pytest.raises(DecodeError) as caught:
        decoder.feed("é ok".encode() + b"\xff")
    assert caught.value.completed == "é ok"


def test_truncated_at_close_is_an_error_in_strict() -> None:
    decoder = Utf8Decoder()
    decoder.feed(b"ab" + EMOJI[:3])
    with pytest.raises(DecodeError) as caught:
        decoder.close()
    assert (caught.value.offset, caught.value.bad_bytes) == (2, EMOJI[:3])


@pytest.mark.parametrize(
    "raw", [b"\x80", b"a\xffb", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xf0\x9f", b"\xe2\x82x"]
)
def test_replace_equals_whole_input_replacement_under_one_byte_reads(raw: bytes) -> None:
    """WHATWG's decoder and Python's agree on U+FFFD placement (maximal subparts)."""
    decoder = Utf8Decoder("replace")
    assert feed_all(decoder, [bytes([b]) for b in raw]) == raw.decode("utf-8", "replace")


def test_unknown_errors_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="errors must be"):
        Utf8Decoder("ignore")
