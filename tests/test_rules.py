"""Every rule a task states is covered: one mutant per rule, breaking only that rule of a
right answer, is rejected by the exercise's check with the kind and direction right."""

from __future__ import annotations

import pytest
from mutants import (
    AfterDoneAllowed,
    AllTypes,
    AlwaysIncomplete,
    BomDroppedEverywhere,
    CloseForgetsHeld,
    CompletedDropped,
    CompletedLost,
    CrlfTwoEnds,
    CrNotAnEnd,
    CrWaits,
    CutterCrWaits,
    CutterDecodes,
    CutterDropsInnerLf,
    CutterEmptyChunkResets,
    CutterForgetsTheCr,
    CutterLosesTheRest,
    DataNotText,
    Decodes,
    DecodesEveryChunk,
    DoneGivesText,
    EmptyChunkResets,
    ErrorSkipped,
    IgnoresInvalid,
    JsonLeaks,
    LfAfterCrKept,
    LfNotAnEnd,
    LimitIncludesTheEnd,
    LimitOnCompleteLines,
    NeverIncomplete,
    NeverStrict,
    NoEndMarker,
    NoEndRequired,
    NoLimit,
    NoRequiredKeys,
    OffsetInChunk,
    OnlyLfLf,
    PayloadsDropped,
    UnfinishedDropped,
    UnfinishedNotCounted,
    UnknownTypesRefused,
    cut_holds_a_whole_character,
    cut_holds_invalid_bytes,
    cut_never_holds,
    encoder,
    pipeline_of,
)

from sse_course.classroom import checks, exercises
from sse_course.classroom.checking import CheckFailed, Kind
from sse_course.classroom.exercises import ex05_limits_and_failures as ex05
from sse_course.classroom.exercises import ex06_payloads as ex06
from sse_course.classroom.zoo import PAYLOAD_ZOO

# --- exercise 02: safe_cut and the decoder ------------------------------------------


# --- exercise 03: lines on bytes ------------------------------------------------------


# --- exercise 04: the encoder ----------------------------------------------------------


# --- exercise 05 part 2: the line limit -----------------------------------------------


# --- exercise 06: the named-events contract, and the JSON adapter ---------------------


# --- exercise 09: blocks cut on the bytes ---------------------------------------------


#: check name -> rule -> (the mutant's arguments to the check, (kind, direction)).
MUTANTS: dict[str, dict[str, tuple[tuple, tuple[Kind, str]]]] = {
    "check_safe_cut": {
        "promise-not-kept": ((cut_never_holds,), (Kind.WRONG_VALUE, "too high")),
        "promise-kept": ((cut_holds_a_whole_character,), (Kind.WRONG_VALUE, "too low")),
        "invalid-not-held": ((cut_holds_invalid_bytes,), (Kind.WRONG_VALUE, "too low")),
    },
    "check_decoder": {
        "whole-characters": ((DecodesEveryChunk,), (Kind.WRONG_ERROR, "unexpected")),
        "final": ((CloseForgetsHeld,), (Kind.WRONG_ERROR, "other class")),
        "bom-once": ((BomDroppedEverywhere,), (Kind.EXTRA, "more")),
        "strict-raises": ((NeverStrict,), (Kind.MISSING_ERROR, "none raised")),
        "replace": ((IgnoresInvalid,), (Kind.WRONG_VALUE, "")),
        "offset-in-stream": ((OffsetInChunk,), (Kind.WRONG_VALUE, "offset")),
        "completed": ((CompletedLost,), (Kind.MISSING, "never")),
    },
    "check_byte_lines": {
        "lf": ((LfNotAnEnd,), (Kind.MISSING, "never")),
        "cr": ((CrNotAnEnd,), (Kind.MISSING, "never")),
        "crlf": ((CrlfTwoEnds,), (Kind.EXTRA, "more")),
        "cr-at-once": ((CrWaits,), (Kind.MISSING, "late")),
        "lf-after-cr-skipped": ((LfAfterCrKept,), (Kind.EXTRA, "more")),
        "empty-chunk": ((EmptyChunkResets,), (Kind.EXTRA, "more")),
        "unfinished-kept": ((UnfinishedDropped,), (Kind.WRONG_VALUE, "")),
        "close-strict": ((NeverIncomplete,), (Kind.MISSING_ERROR, "none raised")),
        "close-browser": ((AlwaysIncomplete,), (Kind.WRONG_ERROR, "unexpected")),
        "bytes-only": ((Decodes,), (Kind.WRONG_ERROR, "unexpected")),
    },
    "check_encoder": {
        "data-lines": ((encoder(split=False),), (Kind.WRONG_VALUE, "")),
        "space-kept": ((encoder(space=""),), (Kind.WRONG_VALUE, "")),
        "fields": ((encoder(fields=False),), (Kind.WRONG_VALUE, "")),
        "blank-line": ((encoder(end="\n"),), (Kind.MISSING, "never")),
        "refuse": ((encoder(refuse=False),), (Kind.MISSING_ERROR, "none raised")),
        "retry-read-back": ((encoder(retry_read_back=False),), (Kind.MISSING_ERROR, "none raised")),
    },
    "check_line_limit": {
        "over-the-limit": (
            (NoLimit,),
            (Kind.NOT_YOURS, "raised by"),
        ),  # the package splitter's own limit refuses the huge read
        "at-the-limit": ((LimitIncludesTheEnd,), (Kind.WRONG_ERROR, "early")),
        "unfinished-counts": ((UnfinishedNotCounted,), (Kind.MISSING_ERROR, "none raised")),
        "completed": ((CompletedDropped,), (Kind.MISSING, "never")),
        "before-buffering": ((LimitOnCompleteLines,), (Kind.NOT_YOURS, "raised by")),
    },
    "check_named_events": {
        "delta-text": ((DataNotText,), (Kind.WRONG_VALUE, "")),
        "error-raises": ((ErrorSkipped,), (Kind.WRONG_ERROR, "other class")),
        "done-ends": ((DoneGivesText,), (Kind.EXTRA, "more")),
        "others-skipped": ((UnknownTypesRefused,), (Kind.WRONG_ERROR, "unexpected")),
        "nothing-after-done": ((AfterDoneAllowed,), (Kind.MISSING_ERROR, "none raised")),
        "done-required": ((NoEndRequired,), (Kind.MISSING_ERROR, "none raised")),
        "not-json": ((JsonLeaks,), (Kind.WRONG_ERROR, "other class")),
    },
    "check_json_adapter": {
        "event-types": ((AllTypes,), (Kind.WRONG_ERROR, "unexpected")),
        "required-keys": ((NoRequiredKeys,), (Kind.MISSING_ERROR, "none raised")),
        "end-marker": ((NoEndMarker,), (Kind.WRONG_ERROR, "unexpected")),
        "own-error": ((PAYLOAD_ZOO["json-error-leaks"],), (Kind.WRONG_ERROR, "other class")),
        "empty-data": ((PAYLOAD_ZOO["empty-data-skipped"],), (Kind.MISSING_ERROR, "none raised")),
        "nothing-lost": ((PayloadsDropped,), (Kind.MISSING, "never")),
    },
    "check_payloads": {
        "complete-events-only": ((PAYLOAD_ZOO["per-chunk-json"],), (Kind.MISSING, "never")),
    },
}
MUTANTS["check_block_cutter"] = {
    "cr-at-once": ((CutterCrWaits,), (Kind.MISSING, "late")),
    "lf-after-cr-dropped": ((CutterForgetsTheCr,), (Kind.EXTRA, "more")),
    "lf-after-empty-chunks": ((CutterEmptyChunkResets,), (Kind.EXTRA, "more")),
    "every-blank-line": ((OnlyLfLf,), (Kind.MISSING, "never")),
    "every-byte-once": ((CutterDropsInnerLf,), (Kind.WRONG_VALUE, "")),
    "bytes-only": ((CutterDecodes,), (Kind.WRONG_ERROR, "unexpected")),
    "close-rest": ((CutterLosesTheRest,), (Kind.WRONG_VALUE, "")),
}
#: The pipeline check meets the adapter's mistakes behind the package's parser.
MUTANTS["check_payloads"].update(
    {rule: ((pipeline_of(adapter),), kind) for rule, ((adapter,), kind) in MUTANTS["check_json_adapter"].items()}
)


def test_every_stated_rule_has_a_mutant() -> None:
    assert {name: set(found) for name, found in MUTANTS.items()} == {
        name: {rule.name for rule in stated} for name, stated in exercises.check_rules().items()
    }


@pytest.mark.parametrize("check, rule", [(check, rule) for check, found in MUTANTS.items() for rule in found])
def test_a_mutant_breaking_one_rule_is_rejected_with_its_direction(check: str, rule: str) -> None:
    arguments, (kind, direction) = MUTANTS[check][rule]
    with pytest.raises(CheckFailed) as caught:
        getattr(exercises if check in exercises.GIVEN else checks, check)(*arguments)
    verdict = caught.value.verdict
    assert (verdict.kind, verdict.direction) == (kind, direction), str(caught.value)
    assert verdict.status.value == "failing" and verdict.check == check


def test_the_contract_streams_say_what_the_reference_gives() -> None:
    """Exercise 06's inputs are data with their expected texts and error; the reference agrees."""
    for stream in ex06.NAMED_EVENTS_STREAMS["streams"]:
        found = ex06.contract_oracle(stream["input"].encode(), (), "strict", "{}")
        assert (found.items(), found.error and found.error[0]) == (stream["texts"], stream.get("error")), stream["name"]


def test_expected_and_got_never_print_alike() -> None:
    """An error that carries other events than expected shows them: the lines differ."""
    with pytest.raises(CheckFailed) as caught:
        ex05.check_line_limit(LimitIncludesTheEnd)
    expected, got = (line.split(": ", 1)[1] for line in str(caught.value).splitlines()[-2:])
    assert expected != got and "carrying [('message', 'ab'" in expected, str(caught.value)
