"""The checks' references run each stream once, a byte per read, and regroup that
trace for every split (``regrouped`` in sse_course/classroom/checking/declare.py).
That is exact only for a reference whose output depends on the bytes fed so far,
never on where the reads were cut: here each regrouped reference is compared
with a direct run under splits of every kind, and a reference that does depend on
the cuts is shown to fail that comparison."""

from __future__ import annotations

import functools
import json

import pytest

from sse_course.classroom import checks
from sse_course.classroom.checking import StreamCheck, Trace, frozen_options, layers, regrouped
from sse_course.classroom.exercises import ex01_chunks_are_not_events as ex01
from sse_course.classroom.exercises import ex03_text_to_lines as ex03
from sse_course.classroom.harness import chunks_of, partitions
from sse_course.classroom.zoo import ZOO
from sse_course.layered import SLICE_BYTES

#: Splits of every shape: one read, one byte per read, each interesting cut, all of
#: them at once, seeded random ones, and empty reads at both ends.
SAMPLED = ("whole", "one_byte", "interesting", "random")

#: Every check whose reference is regrouped, with the fixtures it runs.
REGROUPED = {check.what: check for check in (checks.PARSER, ex03.BYTE_LINES, ex01.JSON_LINES)}


def disagreements(check: StreamCheck) -> list[tuple[str, str, tuple[int, ...]]]:
    """Each (fixture, profile, split) where the regrouped reference differs from a direct run."""
    direct = check.reference.__wrapped__
    found = []
    for fixture in check.fixtures():
        splits = [*partitions(fixture.raw, SAMPLED), (0, len(fixture.raw))]
        for profile in check.profiles:
            options = frozen_options(fixture.options)
            for cuts in splits:
                if check.reference(fixture.raw, cuts, profile, options) != direct(
                    chunks_of(fixture.raw, cuts), profile, options
                ):
                    found.append((fixture.id, profile, cuts))
    return found


@pytest.mark.parametrize("what", sorted(REGROUPED))
def test_a_regrouped_reference_is_the_direct_run_under_every_sampled_split(what: str) -> None:
    assert disagreements(REGROUPED[what]) == []


def test_the_comparison_fails_for_a_reference_that_depends_on_the_cuts() -> None:
    """A parser that decodes each read on its own breaks every character a cut
    splits: one byte per read breaks them all, so regrouping its trace is wrong."""

    @regrouped
    def per_read(chunks: list[bytes], profile: str, options: str) -> Trace:
        return checks.event_trace(lambda: ZOO["decode-each-chunk"](profile, **json.loads(options)), chunks)

    utf8 = [fixture for fixture in checks.PARSER.fixtures() if fixture.family == "utf8"]
    found = disagreements(StreamCheck("per-read", (), lambda: utf8, checks.PARSER.build, per_read, checks.event_trace))
    assert ("utf8/emoji-token-stream", "browser", ()) in found, found[:5]


def test_a_read_that_raises_carries_the_events_its_earlier_bytes_completed() -> None:
    """The regrouped error path: an event, then an invalid byte, in one read."""
    raw = b"data: a\n\n\xff"
    trace = checks.reference_trace(raw, (), "strict", "{}")
    assert trace.calls == () and trace.error == ("DecodeError", 9)
    assert [event[:2] for event in trace.carried] == [("message", "a")]
    assert trace == checks.reference_trace.__wrapped__([raw], "strict", "{}")


def handover_disagreements(fixtures: list) -> list[tuple[str, str, tuple[int, ...]]]:
    """Each (fixture, profile, split) where what an assembler is handed, regrouped from a
    byte per read, differs from a direct run; or where two splits get the same key
    (checks.HANDED_TO_ASSEMBLER) but are handed different calls."""
    regrouped_handover = regrouped(functools.partial(layers.handed_trace, "assembler"))
    found = []
    for fixture in fixtures:
        splits = [*partitions(fixture.raw, SAMPLED), (0, len(fixture.raw))]  # a fifth of them share a key with another
        for profile in checks.EVENT_ASSEMBLER.profiles:
            options = frozen_options(fixture.options)
            by_key: dict[tuple, tuple] = {}
            for cuts in splits:
                direct = layers.handed_trace("assembler", chunks_of(fixture.raw, cuts), profile, options)
                calls = (
                    direct.calls,
                    direct.error,
                    direct.carried,
                )  # not ``reads``: reads after an error are never fed
                key = checks.HANDED_TO_ASSEMBLER(fixture.raw, cuts, profile, options)
                if (
                    regrouped_handover(fixture.raw, cuts, profile, options) != direct
                    or by_key.setdefault(key, calls) != calls
                ):
                    found.append((fixture.id, profile, cuts))
    return found


def test_an_assembler_is_handed_what_the_bytes_so_far_complete() -> None:
    """The event assembler check runs a learner's assembler once per distinct thing it is
    handed: exact only if the key says what the package's decoder and splitter hand it,
    read by read, under every split (their errors, with messages, included)."""
    assert handover_disagreements(checks.all_fixtures()) == []


def test_splits_that_hand_an_assembler_the_same_lines_share_a_key() -> None:
    """Cuts before the same line end hand it the same lines; an empty read (one more
    call, ``feed([])``), a cut past another line end, or an error in another read do not."""
    handed = checks.HANDED_TO_ASSEMBLER
    raw = b"data: abc\ndata: d\n\n"
    assert handed(raw, (2,), "strict", "{}") == handed(raw, (9,), "strict", "{}") == (0, 3)
    assert handed(raw, (10,), "strict", "{}") == handed(raw, (17,), "strict", "{}") == (1, 3)
    assert handed(raw, (12, 12), "strict", "{}") == (1, 1, 3) and handed(raw, (18,), "strict", "{}") == (2, 3)
    bad = b"data: a\n\xff\n"
    assert handed(bad, (2,), "strict", "{}") == handed(bad, (5,), "strict", "{}") != handed(bad, (8,), "strict", "{}")
    assert handed(b"x" * (SLICE_BYTES + 1), (), "strict", "{}") == (
        "sliced",
    )  # fed in two slices, two calls: never merged
