"""Deterministic benchmark corpora: the same bytes on every machine, every run.

All text is synthetic (no real provider's output): an LLM-style token stream,
large multi-line events with CRLF line ends, and one very long line.
"""

from __future__ import annotations

import json
import random

SEED = 20261130

#: Mixed scripts, so chunk cuts land inside 2-, 3- and 4-byte characters.
WORDS = [
    "the",
    " token",
    " stream",
    ",",
    ".",
    " data",
    " parser",
    " привет",
    " мир",
    " поток",
    " событие",
    "你好",
    "世界",
    "事件",
    "流",
    " 🙂",
    " 🚀",
    "👩‍💻",
    " café",
    " naïve",
]


def token_stream(n_bytes: int, keepalive_every: int = 400) -> bytes:
    """``data: {json}`` token events with a ``: keep-alive`` comment now and then,
    until about ``n_bytes`` (always ending at an event boundary)."""
    rng = random.Random(SEED)
    parts: list[bytes] = []
    size = 0
    index = 0
    while size < n_bytes:
        if index % keepalive_every == 0:
            parts.append(b": keep-alive\n\n")
        delta = {"content": "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))}
        payload = {"id": "evt-synthetic", "index": index, "choices": [{"index": 0, "delta": delta}]}
        parts.append(b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n")
        size += len(parts[-1])
        index += 1
    return b"".join(parts)


def crlf_events(n_bytes: int, lines_per_event: int = 40) -> bytes:
    """Large events: ``event``, ``id`` and many ``data`` lines, all ending in CRLF."""
    rng = random.Random(SEED + 1)
    parts: list[bytes] = []
    size = 0
    index = 0
    while size < n_bytes:
        lines = [f"event: report\r\nid: {index}\r\n"]
        for _ in range(lines_per_event):
            text = "".join(rng.choice(WORDS) for _ in range(rng.randint(8, 24)))
            lines.append(f"data: {text}\r\n")
        lines.append("\r\n")
        parts.append("".join(lines).encode())
        size += len(parts[-1])
        index += 1
    return b"".join(parts)


def long_line(n_bytes: int) -> bytes:
    """One ``data`` line of ``n_bytes`` ASCII bytes, then the blank line."""
    unit = b'{"chunk":"' + bytes(range(0x41, 0x5B)) + b'"},'
    body = (unit * (n_bytes // len(unit) + 1))[:n_bytes]
    return b"data: " + body + b"\n\n"


def spanning_events(n_bytes: int) -> bytes:
    """Events that span many reads: 200 CRLF ``data`` lines of about 100 characters,
    about 22 KB an event."""
    return crlf_events(n_bytes, lines_per_event=200)


CORPORA = {
    "token stream": token_stream,
    "CRLF events": crlf_events,
    "spanning events": spanning_events,
    "long line": long_line,
}


def chunked(raw: bytes, size: int) -> list[bytes]:
    """Cut ``raw`` into chunks of ``size`` bytes (the last may be shorter)."""
    return [raw[i : i + size] for i in range(0, len(raw), size)]


#: Small streams where the standard's rules are easy to miss; not timed, only
#: checked, so that a peer's disagreement on them is seen.
EDGE_CASES = {
    "a block without data dispatches nothing": b"event: ping\n\ndata: a\n\n",
    "the last event ID persists across events": b"id: 7\ndata: a\n\ndata: b\n\n",
    "an id with NUL is ignored": b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n",
    "CR alone ends lines": b"data: a\r\rdata: b\r\r",
    "a BOM at the start is dropped": b"\xef\xbb\xbfdata: a\n\n",
    "U+2028 is not a line end": "data: a\u2028b\n\n".encode(),
    "invalid UTF-8 becomes U+FFFD": b"data: a\xffb\n\n",
    "an unfinished last event is discarded": b"data: a\n\ndata: b",
}
