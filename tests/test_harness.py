"""The harness finds chunking bugs and reports the smallest split that shows them."""

from __future__ import annotations

import pytest

from sse_course import Event, SSEParser
from sse_course.classroom.fixtures import get_fixture, load_fixtures
from sse_course.classroom.harness import (
    SEARCH_ORDER,
    STRATEGIES,
    chunks_of,
    find_failure,
    interesting_cuts,
    partitions,
    run,
    same_events,
    search_plan,
    show_split,
)
from sse_course.classroom.zoo import ZOO

#: The classic bug: each chunk decoded on its own.
DecodePerChunk = ZOO["decode-each-chunk"]


class LfOnly(SSEParser):
    """Lines split on LF only; CR is left in the value."""

    def feed(self, chunk: bytes) -> list[Event]:
        return super().feed(chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\x00"))


def test_chunks_of_and_empty_reads() -> None:
    assert chunks_of(b"abcd", (1, 1, 3)) == [b"a", b"", b"bc", b"d"]
    assert show_split(b"ab", (1,)) == "b'a' | b'b'"


def test_partitions_fewest_cuts_first_and_pairs_bounded() -> None:
    found = partitions(b"abcd", ["whole", "single", "pairs"])
    assert found[0] == () and [len(p) for p in found] == sorted(len(p) for p in found)
    assert (1, 3) in found
    assert not list(partitions(b"x" * 100, ["pairs"]))


def test_search_plan_is_every_partition_once_cheap_strategies_first() -> None:
    """Reordering a search must not shrink it: each fixture gets exactly the
    partitions ``partitions`` gives it, once each, under its own strategies or all."""
    fixtures = load_fixtures()
    assert set(SEARCH_ORDER) == set(STRATEGIES)
    for strategies in (None, STRATEGIES):
        plan = list(search_plan(fixtures, strategies))
        planned: dict[int, list] = {id(fixture): [] for fixture in fixtures}
        for fixture, cuts in plan:
            planned[id(fixture)].append(cuts)
        for fixture in fixtures:
            names = fixture.checked_under if strategies is None else STRATEGIES
            assert sorted(planned[id(fixture)]) == sorted(partitions(fixture.raw, names, fixture.cuts)), fixture.id
    own = sum(len(set(fixture.cuts)) for fixture in fixtures)
    assert [cuts for _, cuts in plan[own : own + len(fixtures)]] == [()] * len(fixtures)  # then one read of each
    assert plan[-1][1] == (len(plan[-1][0].raw) - 2, len(plan[-1][0].raw) - 1)  # the pairs come last


def test_search_plan_refuses_a_strategy_it_cannot_place() -> None:
    with pytest.raises(KeyError, match="nonsense"):
        list(search_plan([get_fixture("line_ends/lf")], ["whole", "nonsense"]))


def test_interesting_cuts_inside_characters_and_crlf() -> None:
    raw = "data: é\r\n\r\n".encode()
    cuts = interesting_cuts(raw)
    assert 5 in cuts  # after 'data:'
    assert 7 in cuts  # inside 'é'
    assert 9 in cuts  # between CR and LF


def test_run_collects_events_carried_by_errors() -> None:
    outcome = run(SSEParser, [b"data: a\n\n\xff"])
    assert outcome.events == (Event("message", "a"),)
    assert outcome.error and outcome.error[0] == "DecodeError"


def test_same_events_on_partial_event_shapes() -> None:
    expected = [Event("message", "x", "1", None)]
    assert same_events(expected, [("message", "x")])
    assert not same_events(expected, [("message", "y")])
    assert not same_events(expected, [])


def test_correct_parser_has_no_failure() -> None:
    fixture = get_fixture("utf8/two-three-four-byte")
    assert find_failure(SSEParser, fixture) is None


def test_per_chunk_decoding_is_caught_with_one_cut_inside_a_character() -> None:
    fixture = get_fixture("utf8/two-three-four-byte")
    failure = find_failure(DecodePerChunk, fixture, exact_errors=False)
    assert failure is not None and len(failure.cuts) == 1
    cut = failure.cuts[0]
    assert 0x80 <= failure.raw[cut] < 0xC0  # the cut lands before a continuation byte
    assert "|" in str(failure) and "expected" in str(failure)


def test_shrinking_keeps_the_failure_and_makes_it_shorter() -> None:
    fixture = get_fixture("line_ends/cr")
    failure = find_failure(LfOnly, fixture, exact_errors=False)
    assert failure is not None and len(failure.raw) < len(fixture.raw)
    assert b"\r" in failure.raw
    unshrunk = find_failure(LfOnly, fixture, exact_errors=False, shrink=False)
    assert unshrunk is not None and unshrunk.raw == fixture.raw


def test_failure_message_shows_every_event_field() -> None:
    class NoRetry(SSEParser):
        """retry never recorded."""

        def feed(self, chunk: bytes) -> list[Event]:
            return [Event(e.type, e.data, e.last_event_id, None) for e in super().feed(chunk)]

    failure = find_failure(NoRetry, get_fixture("retry/retry-valid"), shrink=False)
    assert failure is not None and "5000" in str(failure)


def test_shrinking_never_cuts_a_character_in_half() -> None:
    class BrowserLfOnly(LfOnly):
        def __init__(self) -> None:
            super().__init__("browser")

    fixture = get_fixture("line_ends/cr-then-split-character")
    failure = find_failure(BrowserLfOnly, fixture, "browser", exact_errors=False)
    assert failure is not None and len(failure.raw) < len(fixture.raw)
    failure.raw.decode("utf-8")  # still valid UTF-8: no half characters left behind
