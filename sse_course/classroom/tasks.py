"""The transfer tasks of exercises 01, 04 (part 1), 05 (part 1), 07 and 08: their inputs as data, and their references.

Each task asks for a lesson's idea applied to something the lesson did not
print, so each needs its own reference (what the task's rules say) and its own
inputs, chosen so that every rule the task states is broken by some input:

* exercise 01, :class:`JsonLines`: chunks are not messages, in another format
  (JSON Lines: one JSON value per LF-terminated line);
* exercise 04, :func:`resume_state`: the field rules, asked a new question
  (what a client sends after a drop, rather than which events came);
* exercise 05, :class:`Pipeline`: lesson 05's composition for any chain of
  sans-I/O stages, with stages whose end output matters (:class:`TailLines`,
  :class:`Batches`);
* exercise 07: a mistake of one's own that every shipped fixture misses, and
  the fixture that catches it;
* exercise 08, :func:`read_answer`: a real, possibly compressed, possibly cut
  stream shown to a user: the text, and whether it arrived whole.

This module holds no checking machinery: the checks are declarations on the
checking engine (:mod:`sse_course.classroom.checking`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import IncompleteStream
from ..events import EventAssembler
from ..parser import SSEParser
from ..decoding import Utf8Decoder
from ..lines import LineSplitter

# --- exercise 01: JSON Lines -------------------------------------------------


#: name -> (why it matters, the stream): each breaks one rule of the task when the reads cut it.
JSON_LINES_STREAMS: dict[str, tuple[str, bytes]] = {
    "tokens": (
        "Characters of two, three and four bytes: a read may end inside any of them.",
        '{"token": "caf\u00e9"}\n{"token": " \u20ac5"}\n{"token": " \U0001f600"}\n'.encode(),
    ),
    "several-per-read": ("Read whole, one chunk completes four values.", b'1\n2\n[3, 4]\n"five"\n'),
    "blank-lines": ("Blank lines carry no value.", b'\n{"a": 1}\n\n  \n{"b": [true, null]}\n'),
    "no-final-lf": ("The last line may end without LF: close() gives its value.", b'{"done": false}\n{"done": true}'),
    "crlf": ("A CR before the LF is JSON whitespace.", '{"x": "\u00e9"}\r\n{"y": 2}\r\n'.encode()),
    "blank-tail": ("What is left at the end may be blank: no value.", b'"last"\n  '),
    "escaped-lf": ('An LF inside a JSON string is written \\n: it ends no line.', b'{"text": "two\\nlines"}\n7\n'),
}


class JsonLines:
    """bytes -> JSON values, one per LF-terminated line; the last line may lack its LF."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []  # the unfinished line's bytes

    def feed(self, chunk: bytes) -> list[Any]:
        *complete, rest = chunk.split(b"\n")
        if not complete:
            self.pieces.append(rest)
            return []
        lines = [b"".join([*self.pieces, complete[0]]), *complete[1:]]
        self.pieces = [rest]
        return [json.loads(line) for line in lines if line.strip()]

    def close(self) -> list[Any]:
        tail, self.pieces = b"".join(self.pieces), []
        return [json.loads(tail)] if tail.strip() else []


# --- exercise 04: the state a client resumes with ----------------------------


#: name -> lines (blank line = ""): each separates one field rule of the task.
RESUME_STREAMS: dict[str, tuple[str, ...]] = {
    "id-with-colons": ("id: a:b", "data: x", ""),
    "two-spaces": ("id:  7", ""),
    "no-space": ("id:8", "retry:250", ""),
    "name-alone": ("id: 5", "", "id", "data: y", ""),
    "names-cased": ("id: 1", "", "ID: 9", "Retry: 7", "retry : 8", ""),
    "id-at-dispatch": ("id: 3", "data: x", "", "id: 4", "data: y"),
    "id-without-data": ("id: 6", "", ": a comment", ""),
    "id-with-nul": ("id: 1", "", "id: 2\x003", "data: z", ""),
    "retry-not-digits": ("retry: 100", "retry: +5", "retry:  5", "retry: 1_0", "retry: \u0663", "retry: 5s", "retry:", ""),
    "retry-at-once": ("data: x", "retry: 500", "data: y"),
    "retry-too-large": ("retry: 18446744073709551615", "", "retry: 18446744073709551616", ""),
    "comment-like-field": (":id: 9", "id: 2", ""),
}


def resume_state(lines: Iterable[str]) -> tuple[str, int | None]:
    """The Last-Event-ID and reconnection time a client holds after these complete lines."""
    assembler = EventAssembler(strict=False)
    assembler.feed(list(lines))
    return assembler.last_event_id, assembler.retry


def lines_of(raw: bytes) -> list[str]:
    """The complete lines of a stream (U+FFFD for bad bytes, no limit)."""
    return LineSplitter(1 << 40, strict=False).feed(Utf8Decoder("replace").feed(raw))


# --- exercise 05: any chain of stages ----------------------------------------


class Pipeline:
    """Any sans-I/O stages in a row: each one's output is the next one's input."""

    def __init__(self, *stages: Any) -> None:
        self.stages = stages

    def feed(self, value: Any) -> Any:
        for stage in self.stages:
            value = stage.feed(value)
        return value

    def close(self) -> Any:
        ended = self.stages[0].close()
        for stage in self.stages[1:]:
            ended = stage.feed(ended) + stage.close()
        return ended


class TailLines:
    """text -> lines at LF, for formats whose last line may end without one
    (JSON Lines, logs): close() returns the unfinished line, if any."""

    def __init__(self) -> None:
        self.partial = ""

    def feed(self, text: str) -> list[str]:
        *lines, self.partial = (self.partial + text).split("\n")
        return lines

    def close(self) -> list[str]:
        tail, self.partial = self.partial, ""
        return [tail] if tail else []


class JsonValues:
    """lines -> JSON values; blank lines carry none."""

    def feed(self, lines: list[str]) -> list[Any]:
        return [json.loads(line) for line in lines if line.strip()]

    def close(self) -> list[Any]:
        return []


class Batches:
    """items -> lists of ``size`` items (a screen updated every few tokens);
    close() returns the last, shorter batch, if any."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.held: list[Any] = []

    def feed(self, items: list[Any]) -> list[list[Any]]:
        self.held += items
        cut = len(self.held) - len(self.held) % self.size
        ready, self.held = self.held[:cut], self.held[cut:]
        return [ready[i : i + self.size] for i in range(0, cut, self.size)]

    def close(self) -> list[list[Any]]:
        rest, self.held = self.held, []
        return [rest] if rest else []


@dataclass(frozen=True)
class Chain:
    """One chain the exercise 05 check composes: how to build its stages, and what to feed it."""

    name: str
    about: str
    stages: Any  # () -> list of fresh stages
    streams: Sequence[tuple[str, bytes]]


def sse_stages(profile: str, options: dict[str, Any] | None = None) -> list[Any]:
    """The package's three layers for one profile: LayeredSSEParser's, built apart."""
    strict = profile == "strict"
    options = options or {}
    return [
        Utf8Decoder("strict" if strict else "replace"),
        LineSplitter(options.get("max_line_chars", 1 << 20), strict),
        EventAssembler(options.get("max_event_chars", 1 << 24), strict),
    ]


#: Streams whose ends matter in the chains below: a last line without LF, a cut character.
ENDS_STREAMS: tuple[tuple[str, bytes], ...] = (
    ("three values, the last without LF", b'1\n"two"\n[3]'),
    ("a blank tail", b'{"a": 1}\n\n'),
    ("one value, no LF", '"caf\u00e9"'.encode()),
)
TOKEN_STREAMS: tuple[tuple[str, bytes], ...] = (
    ("five events: two batches of two, then one left at the end", b"data: a\n\ndata: b\n\ndata: c\n\ndata: d\n\ndata: e\n\n"),
    ("three events", "data: \u00e9\r\n\r\ndata: b\r\rdata: c\n\n".encode()),
)

CHAINS: tuple[Chain, ...] = (
    Chain("json-lines", "JSON Lines from stages: the line stage's close() gives the last line",
          lambda: [Utf8Decoder("replace"), TailLines(), JsonValues()], ENDS_STREAMS),
    Chain("batched-events", "events in batches of 2, then pairs of batches: each close() gives a last batch",
          lambda: [*sse_stages("browser"), Batches(2), Batches(2)], TOKEN_STREAMS),
    Chain("two-stages", "text and lines only", lambda: [Utf8Decoder("replace"), TailLines()], ENDS_STREAMS),
)


# --- exercise 08: an answer read from a real stream --------------------------


def answer_of(served: bytes) -> tuple[str, bool]:
    """What exercise 08's reader must return for the bytes a server sent: the data of
    the ``message`` events joined, and False when the stream stopped inside a line or an event."""
    parser = SSEParser()
    events, whole = parser.feed(served), True
    try:
        events += parser.close()
    except IncompleteStream as err:
        events, whole = events + err.events, False
    return "".join(event.data for event in events if event.type == "message"), whole
