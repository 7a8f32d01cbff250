"""Every fixture, under every partition strategy it records, in both profiles."""

from __future__ import annotations

import json
from importlib import resources

import pytest

import sse_course
from sse_course import SSEParser
from sse_course.classroom.fixtures import PROFILES, family_names, get_fixture, input_bytes, load_fixtures
from sse_course.classroom.harness import STRATEGIES, find_failure

FIXTURES = load_fixtures()

#: The course teaches these cases; each family must exist with at least one fixture.
FAMILIES = {"bom", "line_ends", "utf8", "fields", "ids", "retry", "eof", "limits", "wpt", "payloads"}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: f.id)
def test_fixture_under_every_partition(fixture, profile: str) -> None:
    failure = find_failure(lambda: SSEParser(profile, **fixture.options), fixture, profile)
    assert failure is None, str(failure)


def test_families_present_and_well_formed() -> None:
    assert FAMILIES <= set(family_names())
    for fixture in FIXTURES:
        assert set(fixture.checked_under) <= set(STRATEGIES), fixture.id
        assert fixture.parser_version == sse_course.__version__, fixture.id


def test_fixture_names_are_unique() -> None:
    ids = [f.id for f in FIXTURES]
    assert len(ids) == len(set(ids))


def test_input_parts_text_and_hex() -> None:
    assert input_bytes(["a", {"hex": "ef bb bf"}, "é"]) == b"a\xef\xbb\xbf\xc3\xa9"
    assert input_bytes("x") == b"x"


def test_get_fixture_by_id() -> None:
    fixture = get_fixture("bom/bom-split-three-reads")
    assert fixture.raw.startswith(b"\xef\xbb\xbf") and fixture.cuts == (1, 2)
    with pytest.raises(KeyError):
        get_fixture("bom/no-such-fixture")


def test_profiles_differ_where_the_policy_differs() -> None:
    """strict and browser must disagree on invalid UTF-8 and on EOF, or the fixtures don't test the profiles."""
    differing = {f.family for f in FIXTURES if f.expected["strict"] != f.expected["browser"]}
    assert {"utf8", "eof"} <= differing


def test_fixture_files_are_plain_json_with_a_description() -> None:
    folder = resources.files("sse_course.classroom.fixtures")
    for name in family_names():
        family = json.loads(folder.joinpath(f"{name}.json").read_text(encoding="utf-8"))
        assert family["about"] and family["fixtures"], name
