"""Every parser in the benchmark behind one signature: ``parse(chunks) -> [(type, data, id)]``.

The peers are fed the same byte chunks directly, through the decoder classes
their packages use for a live response (no network, no HTTP client). A peer
whose package is not installed is skipped and named.
"""

from __future__ import annotations

import codecs
import importlib.util
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sse_course import LayeredSSEParser, SSEParser, iter_events
from sse_course.events import split_field

Triple = tuple[str, str, str]
Parse = Callable[[list[bytes]], list[Triple]]


def ours(parser_class: type[LayeredSSEParser[Any]] | type[SSEParser[Any]], **options: Any) -> Parse:
    def parse(chunks: list[bytes]) -> list[Triple]:
        parser = parser_class(**options)
        events: list[Any] = []
        for chunk in chunks:
            events += parser.feed(chunk)
        events += parser.close()
        return [(e.type, e.data, e.last_event_id) for e in events]

    return parse


def pulled(**options: Any) -> Parse:
    """iter_events over the chunks: like each peer below, a loop of the package's own
    over an iterable of chunks."""

    def parse(chunks: list[bytes]) -> list[Triple]:
        return [(e.type, e.data, e.last_event_id) for e in iter_events(chunks, **options)]

    return parse


class CharLoopParser:
    """A first attempt: decode, then walk the text one character at a time."""

    def __init__(self) -> None:
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.line: list[str] = []
        self.after_cr = False
        self.data: list[str] = []
        self.type = ""
        self.last_id = ""

    def feed(self, chunk: bytes) -> list[Triple]:
        events: list[Triple] = []
        for char in self.decoder.decode(chunk):
            if char == "\n" and self.after_cr:
                self.after_cr = False
                continue
            self.after_cr = char == "\r"
            if char == "\r" or char == "\n":
                self.end_line("".join(self.line), events)
                self.line = []
            else:
                self.line.append(char)
        return events

    def end_line(self, line: str, events: list[Triple]) -> None:
        if not line:
            if self.data:
                events.append((self.type or "message", "\n".join(self.data), self.last_id))
            self.data, self.type = [], ""
        elif not line.startswith(":"):
            name, value = split_field(line)
            if name == "data":
                self.data.append(value)
            elif name == "event":
                self.type = value
            elif name == "id" and "\x00" not in value:
                self.last_id = value


def char_loop(chunks: list[bytes]) -> list[Triple]:
    parser = CharLoopParser()
    return [event for chunk in chunks for event in parser.feed(chunk)]


class _TextResponse:
    """What httpx-sse's EventSource reads from an httpx.Response: the
    content type, and text decoded incrementally with errors='replace'
    (as httpx's TextDecoder does)."""

    headers = {"content-type": "text/event-stream"}

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    def iter_text(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        for chunk in self.chunks:
            text = decoder.decode(chunk)
            if text:
                yield text
        text = decoder.decode(b"", True)
        if text:
            yield text


def httpx_sse_parse(chunks: list[bytes]) -> list[Triple]:
    from httpx_sse import EventSource

    return [(e.event, e.data, e.id) for e in EventSource(_TextResponse(chunks)).iter_sse()]  # type: ignore[arg-type]


def sdk_decoder(module: str) -> Parse:
    """The SSEDecoder class an SDK's streaming module uses, fed bytes."""

    def parse(chunks: list[bytes]) -> list[Triple]:
        decoder = importlib.import_module(module).SSEDecoder()
        return [(e.event or "message", e.data, e.id or "") for e in decoder.iter_bytes(iter(chunks))]

    return parse


#: The bytes that end a line, as ints (``in`` of an int on bytes is one ``memchr``).
LF, CR = 10, 13


def split_lines(chunks: Iterable[bytes]) -> Iterator[bytes | bytearray]:
    """The floor no parser in Python can beat by much: the same chunks split at line
    ends and nothing more (no decoding, no fields, no events). Bytes are held until
    a chunk brings a line end; then the held bytes, through the chunk's last line
    end, are split into lines in one C-level call, and each line is handed on (a
    CRLF cut between two chunks gives one line too many: nothing here looks back)."""
    held = bytearray()
    for chunk in chunks:
        if LF in chunk or CR in chunk:
            end = max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) + 1
            held += chunk[:end]
            yield from held.splitlines()
            held = bytearray(chunk[end:])
        else:
            held += chunk


def split_lines_floor(chunks: list[bytes]) -> int:
    """How many lines :func:`split_lines` hands on, each taken in a Python loop, as a
    parser takes what its line splitter gives."""
    lines = 0
    for _line in split_lines(chunks):
        lines += 1
    return lines


def sseclient_parse(chunks: list[bytes]) -> list[Triple]:
    from sseclient import SSEClient

    return [(e.event, e.data, e.id or "") for e in SSEClient(iter(chunks)).events()]


#: Ours (iter_events, then SSEParser's and LayeredSSEParser's feed() loops), then the
#: peers (package to import, parse).
OURS: dict[str, Callable[..., Parse]] = {
    "iter_events": pulled,
    "SSEParser": lambda **o: ours(SSEParser, **o),
    "LayeredSSEParser": lambda **o: ours(LayeredSSEParser, **o),
}
PEERS: dict[str, tuple[str, Parse]] = {
    "httpx-sse": ("httpx_sse", httpx_sse_parse),
    "openai": ("openai", sdk_decoder("openai._streaming")),
    "anthropic": ("anthropic", sdk_decoder("anthropic._streaming")),
    "sseclient-py": ("sseclient", sseclient_parse),
}


def installed_peers() -> tuple[dict[str, Parse], list[str]]:
    """The peers whose packages import here, and the names of the missing ones."""
    found, missing = {}, []
    for name, (package, parse) in PEERS.items():
        if importlib.util.find_spec(package) is None:
            missing.append(name)
        else:
            found[name] = parse
    return found, missing
