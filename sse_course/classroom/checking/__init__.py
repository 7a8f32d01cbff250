"""The checking engine: one verdict, one comparator, one shrinker, one printer; checks are declarations.

Every check in the course (one module per exercise in
``sse_course.classroom.exercises``, and the lessons' checks in
``sse_course.classroom.checks``) is built from these parts, so all of them
behave and speak alike:

* :mod:`.verdict`: :class:`Verdict` (passed, not attempted, or failed with a
  :class:`Kind`: MISSING, EXTRA, WRONG VALUE, WRONG ERROR, MISSING ERROR, NOT
  YOURS, TOO SLOW, and a direction such as ``late`` or ``early``), raised as
  :class:`CheckFailed`; :func:`failed` is the one way to word a failure:
  ``your decoder is wrong: MISSING (late): ...`` then the details;
* :mod:`.compare`: :class:`Trace` (what a caller observes, read by read) and
  :func:`difference` (the first thing that differs, as kind and direction);
  items are numbered from 1, like reads;
* :mod:`.shrink`: :func:`shrink`, the smallest input and split with the same difference;
* :mod:`.printer`: :func:`exercise` turns a function into a check that prints
  ``Correct: ...`` / ``Not attempted yet: ...`` or raises, and emits each
  verdict as data (:data:`MIMETYPE`) for the progress report;
* :mod:`.ownership`: :class:`NotYours`, what a "write X" task forbids;
* :mod:`.growth`: :func:`check_growth`, TOO SLOW where the task implies linear time;
* :mod:`.declare`: :class:`StreamCheck` and :class:`Rule`;
* :mod:`.inputs`: the shipped fixtures and the streams generated for the rules tasks state;
* :mod:`.layers`: what a caller observes, the reference's traces, and a layer checked inside the parser.

How to declare a check
----------------------

A check fed in chunks is a :class:`StreamCheck`; the public function is one line::

    DECODER = StreamCheck(
        what="your decoder",
        rules=rules(("bom-once", "U+FEFF is dropped once, from the stream's first text"), ...),
        fixtures=lambda: all_fixtures(first=("utf8", "bom")),      # inputs, as data (fixtures/*.json)
        build=lambda make, profile, options: compose(profile, options, decoder=make(errors=...)),
        reference=reference_trace,          # (raw, cuts, profile, options) -> Trace, cached
        observe=event_trace,                # (factory, chunks) -> Trace: what the caller sees
        not_yours=NotYours("write the decoder yourself, without codecs", classes=(Utf8Decoder,), code=(codecs,)),
    )

    @exercise("your decoder")
    def check_decoder(factory):
        return DECODER.verify(factory)

A layer check may also declare ``same_calls``: what the learner's layer is handed
under a split, as a key (``checks.HANDED_TO_ASSEMBLER``). A split that hands it
exactly what an earlier split of the stream handed it is then not run again.

``rules`` lists every rule the task states, by name; ``tests/test_rules.py``
holds one mutant per rule name and asserts the check rejects it with the
right kind and direction. A check that is not fed in chunks (a function
checked on a table of values, a resume loop) keeps its own loop, but words
every failure with :func:`failed`, calls the learner through :func:`attempted`
(or :func:`guarded` for objects), and is wrapped in :func:`exercise`.
"""

from .compare import Difference, Trace, difference, show_trace, trace
from .declare import (
    Rule,
    StreamCheck,
    check_partitions,
    frozen_options,
    in_order,
    not_yours,
    regrouped,
    rules,
    stand_in,
)
from .growth import GROWTH_LIMIT, check_growth, long_line_growth, many_lines_growth
from .learner import Guarded, guarded, watched
from .ownership import NotYours, Watch
from .printer import MIMETYPE, TOKEN_VARIABLE, emit, exercise, not_attempted, show, try_it
from .shrink import shrink
from .verdict import CheckFailed, Kind, NotAttempted, Status, Verdict, attempted, failed

__all__ = [
    "CheckFailed",
    "GROWTH_LIMIT",
    "Difference",
    "Guarded",
    "Kind",
    "MIMETYPE",
    "NotAttempted",
    "NotYours",
    "Rule",
    "Status",
    "StreamCheck",
    "TOKEN_VARIABLE",
    "Trace",
    "Verdict",
    "Watch",
    "attempted",
    "check_growth",
    "check_partitions",
    "difference",
    "emit",
    "exercise",
    "failed",
    "frozen_options",
    "guarded",
    "in_order",
    "not_attempted",
    "not_yours",
    "long_line_growth",
    "many_lines_growth",
    "regrouped",
    "rules",
    "show",
    "show_trace",
    "shrink",
    "stand_in",
    "trace",
    "try_it",
    "watched",
]
