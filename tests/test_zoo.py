"""The zoo's members are real mistakes: each is wrong where it says, and only there."""

from __future__ import annotations

import subprocess
import sys
from functools import cache
from unittest import mock

import pytest

from sse_course import DecodeError, SSEParser
from sse_course.classroom import checks
from sse_course.classroom.checking import frozen_options
from sse_course.classroom.fixtures import Fixture, load_fixtures
from sse_course.classroom.harness import Outcome, Partition, agrees, chunks_of, run, search_plan
from sse_course.classroom.zoo import PROFILES, ZOO, RebuildingSplitter, members
from sse_course.decoding import Utf8Decoder
from sse_course.events import EventAssembler
from sse_course.lines import LineSplitter

#: Members that no shipped fixture shows: the right-but-slow one, lesson 07's target,
#: and the one whose events are right and only its parser state is wrong.
NOT_SHOWN_BY_FIXTURES = {"quadratic-rebuild", "event-type-stripped", "eager-last-event-id"}


@cache
def every_split() -> list[tuple[list[Fixture], str, Partition, list[bytes]]]:
    """Every shipped fixture under every partition it is checked under, made once for
    all the tests here, cheap strategies first (a wrong member fails within a few runs).
    Fixtures with the same input and options (given as a key) share one run per partition."""
    splits: dict[tuple, tuple[list[Fixture], str, Partition, list[bytes]]] = {}
    for fixture, cuts in search_plan(load_fixtures()):
        options = frozen_options(fixture.options)
        splits.setdefault((fixture.raw, options, cuts), ([], options, cuts, chunks_of(fixture.raw, cuts)))[0].append(
            fixture
        )
    return list(splits.values())


def replaced_slot(cls: type) -> str:
    """The slot of the one layer a member replaces; the other two are the package's."""
    (slot,) = [
        slot
        for slot, layer, package in (
            ("decoder", cls.Decoder, Utf8Decoder),
            ("splitter", cls.Splitter, LineSplitter),
            ("assembler", cls.Assembler, EventAssembler),
        )
        if layer is not package
    ]
    return slot


def first_failing_split(name: str, profile: str) -> tuple[str, Partition] | None:
    """The first (fixture, partition) where the member disagrees with the fixture, as
    find_failure judges a run; None if it agrees under every partition of every fixture.
    A wrong assembler is run once per thing it is handed (checks.HANDED_TO_ASSEMBLER):
    splits of a stream that hand it the same calls give the same outcome."""
    cls = ZOO[name]
    handed = checks.HANDED_TO_ASSEMBLER if replaced_slot(cls) == "assembler" else None
    outcomes: dict[tuple, Outcome] = {}
    for fixtures, options, cuts, chunks in every_split():
        raw = fixtures[0].raw
        key = (raw, options, cuts if handed is None else handed(raw, cuts, profile, options))
        if key not in outcomes:
            outcomes[key] = run(lambda: cls(profile, **fixtures[0].options), chunks)  # noqa: B023
        for fixture in fixtures:
            if not agrees(fixture.expected[profile], outcomes[key]):
                return fixture.id, cuts
    return None


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("name", sorted(set(ZOO) - NOT_SHOWN_BY_FIXTURES))
def test_member_is_wrong_exactly_in_its_profiles(name: str, profile: str) -> None:
    failing = first_failing_split(name, profile)
    if profile in ZOO[name].wrong_in:
        assert failing is not None, f"{name} passes every shipped fixture in {profile}"
    else:
        assert failing is None, f"{name} claims to be right in {profile} but fails {failing}"


@pytest.mark.parametrize("name", sorted(NOT_SHOWN_BY_FIXTURES))
def test_members_the_fixtures_do_not_show(name: str) -> None:
    """The quadratic member gives the reference's output everywhere; lesson 07's
    target really is missed by every shipped fixture (its exercise relies on it)."""
    for profile in PROFILES:
        assert first_failing_split(name, profile) is None


def test_quadratic_member_rescans_the_whole_line() -> None:
    """n one-character reads of one line: the package scans n characters, the
    rebuilding splitter n(n+1)/2: the growth lesson 09 counts in a block cutter."""
    n = 200

    def scanned(splitter: LineSplitter) -> int:
        seen: list[int] = []
        original = LineSplitter.feed

        def counting(self: LineSplitter, text: str) -> list[str]:
            seen.append(len(text))
            return original(self, text)

        with mock.patch.object(LineSplitter, "feed", counting):
            for _ in range(n):
                splitter.feed("x")
        return sum(seen)

    assert scanned(LineSplitter()) == n
    assert scanned(RebuildingSplitter()) == n * (n + 1) // 2


def test_every_member_names_its_mistake_and_layer() -> None:
    layers = {"decoding", "lines", "events", "limits", "performance"}
    for name, cls in ZOO.items():
        assert cls.layer in layers and cls.wrong_in <= PROFILES, name
        assert cls.__doc__ and len(cls.__doc__) > 40, name
        assert cls("browser").profile == "browser"


def test_members_filter() -> None:
    assert set(members(layer="decoding")) == {n for n, c in ZOO.items() if c.layer == "decoding"}
    assert "dispatch-at-eof" in members(profile="browser") and "dispatch-at-eof" not in members(profile="strict")
    assert "quadratic-rebuild" not in members()


def test_zoo_imports_cheaply() -> None:
    code = "import sys, sse_course.classroom.zoo; print(sorted(m for m in ('ipywidgets', 'matplotlib', 'numpy') if m in sys.modules))"  # noqa: E501
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_eager_last_event_id_shows_in_the_parser_state() -> None:
    """The issue's stream: the same events, but a reconnecting client would send '2'."""
    raw = b"id: 1\ndata: a\n\nid: 2\ndata: b"
    right, eager = SSEParser("browser"), ZOO["eager-last-event-id"]("browser")
    assert right.feed(raw) == eager.feed(raw)
    assert (right.last_event_id, eager.last_event_id) == ("1", "2")


def test_offset_without_pending_reports_the_issues_offset() -> None:
    with pytest.raises(DecodeError) as right:
        parser = SSEParser()
        parser.feed(b"data: \xf0\x9f"), parser.feed(b"x\n\n"), parser.close()
    wrong = ZOO["offset-without-pending"]()
    wrong.feed(b"data: \xf0\x9f")
    with pytest.raises(DecodeError) as caught:
        wrong.feed(b"x\n\n")
    assert (right.value.offset, caught.value.offset) == (6, 8)
