"""Exercise 02: where a buffer can be cut (``safe_cut``), and a decoder built on it without ``codecs``.

The reference cut is :func:`whole_characters` (lesson 02's lead-byte table); holding C0, C1
and F5-F7 as their bit patterns suggest is accepted too, and so is not holding a lead byte whose
next byte it never allows, as a strict decoder does (:func:`safe_cuts`). The decoder is checked
inside the package's parser, in both profiles.
"""

from __future__ import annotations

import codecs
import encodings.utf_8
import functools
from collections.abc import Callable
from typing import Any

from ... import decoding
from ...decoding import Utf8Decoder
from ...profiles import get_profile
from ..checking import (
    Kind,
    NotYours,
    Watch,
    exercise,
    failed,
    not_yours,
    rules,
    stand_in,
    watched,
)
from ..checking.inputs import all_fixtures
from ..checking.layers import layer_check
from ..fixtures import Fixture

# --- the reference cut, and part 2: the decoder -------------------------------


#: (lowest, highest, bytes in the character) of each kind of lead byte: C0, C1 and F5-FF never start a character.
LEAD_BYTES = ((0xC2, 0xDF, 2), (0xE0, 0xEF, 3), (0xF0, 0xF4, 4))


#: The same table read by bit pattern alone, C0, C1 and F5-F7 taken for lead bytes: holding them is allowed too
#: (the same text and offsets; only the read on which the decoder reports them differs).
LEAD_BYTES_BY_PATTERN = ((0xC0, 0xDF, 2), (0xE0, 0xEF, 3), (0xF0, 0xF7, 4))


def whole_characters(buffer: bytes, leads: tuple[tuple[int, int, int], ...] = LEAD_BYTES) -> int:
    """How many leading bytes of ``buffer`` can be decoded now: all but a
    trailing lead byte that promises more bytes than follow it (and those that
    follow). Bytes that are invalid anyway are left to the decoder to report."""
    for back in range(1, min(3, len(buffer)) + 1):
        byte = buffer[-back]
        if 0x80 <= byte <= 0xBF:  # a continuation byte: the character starts further back
            continue
        promised = next((size for low, high, size in leads if low <= byte <= high), 1)
        return len(buffer) - back if promised > back else len(buffer)
    return len(buffer)


def safe_cuts(buffer: bytes) -> list[int]:
    """The cuts the task accepts for ``buffer``, the rule's cut first: C0, C1 and F5-F7 held or not; and
    bytes the rule holds that no later byte can make valid (E0 80: after E0 only A0-BF may come) held or
    not: the decoder reports the same bytes at the same offset, on this read or the next."""
    cut = whole_characters(buffer)
    early = [] if _may_complete(buffer[cut:]) else [len(buffer)]
    return list(dict.fromkeys((cut, whole_characters(buffer, LEAD_BYTES_BY_PATTERN), *early)))


def _may_complete(held: bytes) -> bool:
    """Could later bytes make ``held`` (a lead byte and the continuation bytes after it) one character?
    Only the second byte's range depends on the lead byte, so a lone lead byte may, and after the second
    byte trying 0x80s is enough. (Whole decodes: CPython's incremental decoder holds ED A0, a surrogate's start.)"""
    return len(held) < 2 or any(_decodes(held + b"\x80" * more) for more in range(3))


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def not_ascii(fixture: Fixture) -> bool:
    """A stream a decoder has work in: a byte that is not ASCII, or the end of the stream to report.
    (A stream of ASCII alone decodes the same whatever the decoder does with held bytes.)"""
    return fixture.family in ("eof", "limits") or any(byte >= 0x80 for byte in fixture.raw)


DECODER = layer_check(
    "decoder",
    "your decoder",
    rules(
        ("whole-characters", "decode the whole characters; hold the bytes of one cut by a read for the next read"),
        ("final", "at the end of the stream (close), decode all that is held: a cut character is an error or U+FFFD"),
        ("bom-once", "U+FEFF is dropped once, from the stream's first text"),
        ("strict-raises", "in the strict profile an invalid byte raises DecodeError"),
        ("replace", "with errors='replace' an invalid byte becomes U+FFFD"),
        ("offset-in-stream", "DecodeError's offset counts from the start of the stream"),
        ("completed", "DecodeError's completed is the text before the bad byte"),
    ),
    lambda profile, _options: {"errors": get_profile(profile).decode_errors},
    not_ascii,
    empty="",
    not_yours=NotYours(
        "write the decoder yourself, with bytes.decode and your safe_cut: no codecs incremental decoder, "
        "no Utf8Decoder, not the course's own safe_cut (not subclassed, held or called)",
        classes=(Utf8Decoder, codecs.IncrementalDecoder),
        code=(codecs, encodings.utf_8, decoding, codecs.utf_8_decode, codecs.getincrementaldecoder, whole_characters),
    ),
    parts=(("safe_cut", stand_in(whole_characters, "safe_cut")),),
)


@exercise("your decoder")
def check_decoder(factory: Callable[..., Any]) -> str:
    """Exercise 02: ``factory(errors="strict" | "replace")`` returns a decoder with
    ``feed(bytes) -> str`` and ``close() -> str`` (BOM dropped once, at the
    start; strict errors raise ``DecodeError`` carrying the text before them)."""
    return DECODER.verify(factory)


# --- part 1: where a buffer can be cut ----------------------------------------


SAFE_CUT_EXTRA = [
    b"",
    b"\x80\x80\x80\x80",
    b"a\xf8\x80",
    b"\xc3\xa9\xc3",
    b"\xf0\x9f\x98\x80\xf0",
    b"data: \xc0",
    b"\xc1",
]


def safe_cut_cases() -> list[bytes]:
    """Every prefix of every fixture's bytes, every lead byte's start, and a few edge cases, shortest first."""
    found = {raw[:end] for fixture in all_fixtures() for raw in [fixture.raw] for end in range(len(raw) + 1)}
    return sorted(
        found | _lead_byte_starts() | set(SAFE_CUT_EXTRA), key=lambda raw: (not _valid_so_far(raw), len(raw), raw)
    )


@functools.cache
def safe_cut_table() -> tuple[tuple[bytes, tuple[int, ...]], ...]:
    """Each of :func:`safe_cut_cases` with the cuts it accepts: worked out once, as the check runs them all."""
    return tuple((buffer, tuple(safe_cuts(buffer))) for buffer in safe_cut_cases())


def _lead_byte_starts() -> set[bytes]:
    """Every byte from C0 up followed by every byte from 80 up, and from F0 up by two continuation bytes (the
    third at either end of its range) or one and FF. A cut that checks the second byte must get each lead byte's
    range right to its edges (E0 A0 starts U+0800; E0 9F can start nothing), and a cut that skips C0, C1 and
    F5-FF as if they continued a character holds the lead byte before them (E2 FF, F0 9F FF)."""
    pairs = {bytes([lead, second]) for lead in range(0xC0, 0x100) for second in range(0x80, 0x100)}
    fours = [pair for pair in pairs if pair[0] >= 0xF0 and pair[1] <= 0xBF]
    return pairs | {pair + bytes([third]) for pair in fours for third in (0x80, 0xBF, 0xFF)}


def _valid_so_far(buffer: bytes) -> bool:
    """Could the buffer be the start of valid UTF-8? Those make the clearer examples."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(buffer)
    except UnicodeDecodeError:
        return False
    return True


SAFE_CUT_RULES = rules(
    ("promise-not-kept", "a lead byte that promises more bytes than follow it is held, with what follows it"),
    ("promise-kept", "a buffer that ends on a whole character is decodable whole"),
    (
        "invalid-not-held",
        "single bytes that can never be part of a character (0xC0, 0xC1, 0xF5-0xFF, a continuation byte with no "
        "lead) are not held (holding 0xC0, 0xC1 or 0xF5-0xF7 as lead bytes is allowed, and so is not holding a "
        "lead byte whose next byte it never allows, such as E0 80)",
    ),
)


SAFE_CUT_NOT_YOURS = NotYours(
    "work out the cut from the bytes yourself (which bytes are lead bytes, how many they promise): "
    "not with a decoder (codecs, Utf8Decoder) nor the course's own safe_cut",
    classes=(Utf8Decoder, codecs.IncrementalDecoder),
    code=(whole_characters, codecs, encodings.utf_8, decoding, codecs.utf_8_decode, codecs.getincrementaldecoder),
)


def safe_cut_rule(buffer: bytes, got: Any, expected: int) -> str:
    """Which rule a wrong cut breaks, in the task's words, and what it does to the bytes."""
    if not isinstance(got, int) or not 0 <= got <= len(buffer):
        return f"the cut is a number of bytes, from 0 to len(buffer) ({len(buffer)})."
    if got > expected:
        return (
            f"{buffer[expected:got]!r} would be decoded now, but it starts a character whose last bytes have "
            "not arrived (a lead byte that promises more bytes than follow it is held, with what follows it)."
        )
    held = buffer[got:expected]
    if _decodes(held):
        return f"{held!r} would wait for nothing: those bytes end on a whole character and can be decoded now."
    return (
        f"{buffer[got:]!r} would be held, but no later byte can make it valid (single bytes that can never be part "
        "of a character, 0xF8-0xFF or a continuation byte with no lead, are not held, nor is a lead byte before "
        "one: the decoder reports them now)."
    )


@exercise("your safe_cut")
def check_safe_cut(safe_cut: Callable[[bytes], int]) -> str:
    """Exercise 02: ``safe_cut(buffer)`` is the number of leading bytes that end
    on a character boundary (a lead byte's promise kept, or broken beyond repair)."""
    cases = safe_cut_table()
    watch = Watch(SAFE_CUT_NOT_YOURS)
    for buffer, accepted in cases:
        got = watched(watch, safe_cut, buffer)
        if watch.reached:
            raise not_yours("your safe_cut", SAFE_CUT_NOT_YOURS, watch.reached[0])
        if got not in accepted:
            low = isinstance(got, int) and got < min(accepted)
            expected = min(accepted) if low else max(accepted)  # the accepted cut nearest to the learner's
            should = " or ".join(map(str, accepted))
            raise failed(
                "your safe_cut",
                Kind.WRONG_VALUE,
                f"safe_cut({buffer!r}) should be {should}, yours is {got!r}: {safe_cut_rule(buffer, got, expected)}",
                f"    decodable now: {buffer[:expected]!r}, held for the next read: {buffer[expected:]!r}",
                direction="too low" if low else "too high",
            )
    return (
        f"gives the right cut for {len(cases)} buffers: every prefix of every fixture, "
        "every lead byte followed by every byte from 0x80 up, and edge cases"
    )
