"""Exercise 09: cut a stream's bytes into event blocks, before any decoding.

A *block* is the bytes of one event block: its lines, then the blank line that
ends it, every line end included (CR, LF or CRLF). CR and LF are ASCII and never
occur inside a UTF-8 sequence, so blocks can be cut on the bytes and each one
decoded on its own, once (lesson 09).

:class:`BlockCutter` is the reference; :func:`check_block_cutter` compares a
learner's cutter with it, feed by feed, on every fixture under every partition
strategy of the harness, and on inputs chosen to separate the rules. The check
itself is declared in :mod:`sse_course.classroom.checks` (where every check
lives, with the engine's verdicts and shrinking); this module gives it the
reference, the inputs, the comparison and the messages.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from .. import __version__
from .fixtures import Fixture, load_fixtures
from .harness import STRATEGIES, Partition, chunks_of, show_split

CR, LF = 13, 10


class BlockCutter:
    """bytes -> blocks: each event block's bytes, through the line end of its blank line.

    A CR ends its line at once; an LF right after it (in this chunk or a later
    one) belongs to that line end: kept inside a block, dropped after a block.
    """

    def __init__(self) -> None:
        self.held = bytearray()  # the bytes after the last block
        self.line_start = 0  # where the unfinished line starts in ``held``
        self.after_cr = False  # the last byte was a CR: an LF next is its CRLF's

    def feed(self, chunk: bytes) -> list[bytes]:
        """The blocks this chunk completes, in stream order."""
        if not chunk:
            return []  # an empty read changes nothing, not even a pending CR
        held = self.held
        search = len(held)  # ``held`` has no line end past ``line_start``
        if self.after_cr and chunk[0] == LF:
            if held:  # the CR ended a line inside the block: the LF stays with it
                search += 1
                self.line_start = search
            else:  # the CR ended a block's blank line: its LF is in no block
                chunk = chunk[1:]
        self.after_cr = chunk[-1:] == b"\r"
        held += chunk
        blocks: list[bytes] = []
        first = 0  # where the next block starts
        cr, lf = held.find(b"\r", search), held.find(b"\n", search)
        while cr >= 0 or lf >= 0:
            end = lf if cr < 0 or 0 <= lf < cr else cr
            after = end + 2 if end == cr and lf == end + 1 else end + 1
            if end == self.line_start:  # an empty line: the blank line that ends a block
                blocks.append(bytes(held[first:after]))
                first = after
            self.line_start = after
            if cr < after:
                cr = held.find(b"\r", after)
            if lf < after:
                lf = held.find(b"\n", after)
        del held[:first]
        self.line_start -= first
        return blocks

    def close(self) -> bytes:
        """End of stream: the bytes after the last block (``b""`` if none)."""
        rest = bytes(self.held)
        self.held.clear()
        self.line_start = 0
        return rest


# --- the inputs -------------------------------------------------------------


#: Chunkings chosen to separate the task's rules, each run as given and under
#: every partition strategy of the harness.
RULE_CASES: dict[str, tuple[str, list[bytes]]] = {
    "cr-blank-then-lf-after-empty-reads": (
        "A CR ends the blank line at once; the LF reads later belongs to it and is in no block.",
        [b"data: a\r", b"\r", b"", b"", b"\ndata: b\r\n\r\n"],
    ),
    "crlf-split-inside-a-block": (
        "An LF after a CR that ended a field line stays in the block.",
        [b"data: a\r", b"", b"\ndata: b\r", b"\n\r\n"],
    ),
    "crlf-split-at-the-end-of-a-block": (
        "The blank line's CR completes the block; its LF, one read later, is dropped.",
        [b"data: a\r\n\r", b"\n", b"data: b\r\n\r", b"", b"\n"],
    ),
    "blank-lines-of-every-kind": (
        "\\r\\r, \\n\\r\\n and \\r\\n\\r\\n each end a block.",
        [b"data: a\r\rdata: b\n\r\ndata: c\r\n\r\n"],
    ),
    "invalid-utf8-passes-through": (
        "Bytes that are not UTF-8 are cut like any others.",
        [b"data: \xff\xfe\n\ndata: caf\xc3", b"\xa9 \xed\xa0\x80\r\r"],
    ),
    "starts-with-blank-lines": (
        "A blank line on its own is a block.",
        [b"\n\r\n\r", b"\ndata: a\n\n"],
    ),
    "no-final-blank-line": (
        "close() returns the bytes after the last block.",
        [b"data: a\n\nid: 1\r", b"\ndata: b"],
    ),
}


def cuts_of(chunks: list[bytes]) -> Partition:
    """The partition that gives back ``chunks`` (an empty chunk repeats a cut)."""
    ends, total = [], 0
    for chunk in chunks[:-1]:
        total += len(chunk)
        ends.append(total)
    return tuple(ends)


def rule_fixtures() -> list[tuple[Fixture, Partition]]:
    """Each rule case as a fixture (no expectation: the reference cutter gives it), with its own split."""
    found = []
    for name, (about, chunks) in RULE_CASES.items():
        raw = b"".join(chunks)
        found.append((Fixture("rules", name, about, raw, (), {}, {}, tuple(STRATEGIES), __version__), cuts_of(chunks)))
    return found


def cases(narrowed: Callable[[Fixture], list[Partition]]) -> Iterator[tuple[Fixture, list[Partition]]]:
    """The rule cases first (they explain a failure best), then every fixture's bytes, each
    under every partition strategy of the harness (``narrowed``: pairs with an interesting cut)."""
    for fixture, own in rule_fixtures():
        yield fixture, [own, *narrowed(fixture)]
    for fixture in load_fixtures():
        yield fixture, narrowed(replace(fixture, checked_under=tuple(STRATEGIES)))


# --- what a cutter gives, feed by feed ---------------------------------------


@dataclass(frozen=True)
class Cutting:
    """Each feed's blocks, then what close() returned; or the error that stopped it."""

    feeds: tuple[tuple[Any, ...], ...]
    tail: Any = None
    error: str | None = None


def cut_with(factory: Callable[[], Any], chunks: list[bytes]) -> Cutting:
    """Run a fresh cutter over the chunks, then close it."""
    feeds: list[tuple] = []
    try:
        cutter = factory()
        for chunk in chunks:
            feeds.append(tuple(as_bytes(block) for block in cutter.feed(chunk)))
        return Cutting(tuple(feeds), as_bytes(cutter.close()))
    except Exception as err:  # a wrong cutter may raise anything: that is what it did
        return Cutting(tuple(feeds), error=f"{type(err).__name__}: {str(err)[:120]}")


@functools.lru_cache(maxsize=1 << 16)
def reference_cutting(raw: bytes, cuts: Partition) -> Cutting:
    return cut_with(BlockCutter, chunks_of(raw, cuts))


def as_bytes(value: Any) -> Any:
    return bytes(value) if isinstance(value, (bytearray, memoryview)) else value


def show_cutting(cutting: Cutting) -> str:
    """Each feed's blocks, then close()'s bytes (or the error), as one line."""
    feeds = "[" + ", ".join("[" + ", ".join(repr(block) for block in feed) + "]" for feed in cutting.feeds) + "]"
    return feeds + (f" then {cutting.error}" if cutting.error else f", close() -> {cutting.tail!r}")


def is_subsequence(shorter: list, longer: list) -> bool:
    rest = iter(longer)
    return all(any(item == other for other in rest) for item in shorter)


def blocks_difference(read: int, expected: list, got: list, later: list) -> tuple[tuple, str]:
    """The direction of the first difference in the blocks given by read ``read``;
    ``later`` holds every block the learner's cutter gave after it."""
    if len(got) < len(expected) and got == expected[: len(got)]:
        block = expected[len(got)]
        if isinstance(block, bytes) and b"".join(b for b in later if isinstance(b, bytes)).startswith(block):
            return ("late",), f"LATE: read {read} should give block {block!r}, your code gives it only in a later read"
        return ("missing",), f"MISSING: block {block!r}, expected from read {read}, never comes"
    if len(got) > len(expected) and is_subsequence(expected, got):
        extra = next(g for i, g in enumerate(got) if i >= len(expected) or g != expected[i])
        return ("extra",), f"EXTRA: by read {read} your code gives block {extra!r}, which is not one of the stream's blocks"
    if len(got) != len(expected):
        more = "EXTRA" if len(got) > len(expected) else "MISSING"
        return (more.lower(),), f"{more}: by read {read} your code gave {len(got)} blocks where {len(expected)} are complete"
    j = next(j for j, (e, g) in enumerate(zip(expected, got)) if e != g)
    return ("value",), f"WRONG VALUE: block {j + 1} (by read {read}) should be {expected[j]!r}, yours is {got[j]!r}{size_hint(expected[j], got[j])}"


def size_hint(expected: bytes, got: Any) -> str:
    if not isinstance(got, bytes) or len(got) == len(expected):
        return ""
    gap = len(expected) - len(got)
    return f" ({gap} byte{'s' * (gap != 1)} missing)" if gap > 0 else f" ({-gap} byte{'s' * (gap != -1)} too many)"


def cutting_difference(expected: Cutting, got: Cutting) -> tuple[tuple, str] | None:
    """The first thing a caller would see differ, or None: blocks read by read, then close()."""
    if got.error:
        return ("error",), (
            f"EXTRA ERROR: your code raises {got.error.split(':')[0]} where any bytes must pass: "
            "a block cutter works on bytes alone (find, split, slicing) and never decodes"
        )
    so_far_e: list = []
    so_far_g: list = []
    for read, (feed_e, feed_g) in enumerate(zip(expected.feeds, got.feeds), 1):
        so_far_e += feed_e
        so_far_g += feed_g
        if so_far_e != so_far_g:
            later = [block for feed in got.feeds[read:] for block in feed]
            return blocks_difference(read, so_far_e, so_far_g, later)
    if got.tail != expected.tail:
        if expected.tail and not got.tail:
            return ("tail",), f"MISSING: close() should return the bytes after the last block, {expected.tail!r}; yours returns {got.tail!r}"
        return ("tail",), f"WRONG VALUE: close() should return {expected.tail!r} (the bytes after the last block), yours returns {got.tail!r}{size_hint(expected.tail, got.tail)}"
    return None


# --- not yours ----------------------------------------------------------------


def from_package(value: Any) -> bool:
    """Is ``value`` (a module, a class, a function or an object) the package's?"""
    if isinstance(value, types.ModuleType):
        name = value.__name__
    elif isinstance(value, (type, types.FunctionType)):
        name = value.__module__
    else:
        name = type(value).__module__
    return name.split(".")[0] == "sse_course"


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def borrowed(factory: Any) -> str | None:
    """What of the package the cutter is built on, if anything: a class it derives
    from, or a name its code uses."""
    if from_package(factory):
        return f"it is the package's own {factory.__module__}.{factory.__qualname__}"
    functions = [factory]
    if isinstance(factory, type):
        base = next((base for base in factory.__mro__[1:] if from_package(base)), None)
        if base is not None:
            return f"it derives from {base.__module__}.{base.__qualname__}"
        functions = [vars(klass).get(name) for klass in factory.__mro__[:-1] for name in vars(klass)]
    for function in functions:
        code = getattr(function, "__code__", None)
        if code is None:
            continue
        for inner in code_objects(code):
            for name in inner.co_names:
                value = function.__globals__.get(name)
                if value is not None and from_package(value):
                    return f"its code uses {name} from {getattr(value, '__module__', None) or value.__name__}"
    return None


def holds_package_object(factory: Callable[[], Any]) -> str | None:
    """What of the package a fresh cutter holds, if anything (a stub is left to the check)."""
    try:
        cutter = factory()
    except NotImplementedError:
        return None
    held = next((value for value in getattr(cutter, "__dict__", {}).values() if from_package(value)), None)
    return None if held is None else f"it holds a {type(held).__module__}.{type(held).__qualname__}"


def not_yours(factory: Callable[[], Any]) -> str | None:
    """The verdict on a cutter built on the package's own code, or None."""
    how = borrowed(factory) or holds_package_object(factory)
    if how is None:
        return None
    return (
        f"your block cutter is NOT YOURS: {how}.\n"
        "The task asks for a cutter written on bytes alone: bytes.find / index / split and slicing, "
        "no decoding, and none of the package's decoder, line splitter or parsers."
    )


# --- what the check compares ------------------------------------------------------


def compare(raw: bytes, cuts: Partition, make: Callable[[], Any]) -> tuple[tuple, str] | None:
    """How ``make``'s cutter differs from the reference on ``raw`` cut at ``cuts``, or None."""
    return cutting_difference(reference_cutting(raw, cuts), cut_with(make, chunks_of(raw, cuts)))


def verified(fixtures: int, partitions: int) -> str:
    return (
        f"gives the expected blocks read by read and the expected close() on {fixtures - len(RULE_CASES)} fixtures "
        f"and {len(RULE_CASES)} inputs chosen to separate the rules, under {partitions} partitions in all"
    )


def failure_message(fixture: Fixture, raw: bytes, cuts: Partition, says: str, make: Callable[[], Any]) -> str:
    """The learner's bug report: the direction, the input and why it matters, the
    smallest split, then each feed's blocks and close(), expected against got."""
    chunks = chunks_of(raw, cuts)
    shortened = "" if raw == fixture.raw else ", shortened"
    return (
        f"your block cutter is wrong: {says}.\n"
        f"input {fixture.id}{shortened} ({fixture.about})\nunder the split ({len(chunks)} read{'s' * (len(chunks) > 1)})\n"
        f"    {show_split(raw, cuts)}\n"
        f"each feed(), then close():\n"
        f"expected: {show_cutting(reference_cutting(raw, cuts))}\n"
        f"     got: {show_cutting(cut_with(make, chunks))}"
    )
