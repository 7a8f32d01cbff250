"""Record the bytes real SSE servers write as the ``servers`` fixture family.

    python tools/record_server_fixtures.py            # (re)write sse_course/classroom/fixtures/servers.json
    python tools/record_server_fixtures.py --check    # exit 1 if a recording differs from the file

Each framework in tests/real_servers.py (sse-starlette on uvicorn, FastAPI's own
SSE on uvicorn, aiohttp-sse) is started on 127.0.0.1 and asked for two
streams: ``/stream`` (three events: a named one with ``retry``, a two-line
``data``, a JSON payload) and ``/pings`` (two events with keep-alive pings
between them). The response body is read with ``iter_raw()`` and
``Accept-Encoding: identity``: the bytes as the framework wrote them.

Only deterministic parts are kept: how many pings fit in the pause depends on
timing, so a run of pings is kept as its first one, and sse-starlette's ping
timestamp is replaced by a fixed one (the fixture's ``about`` says so). The
expected events come from the plan the servers were given, not from the
parser; the recorder refuses to write a fixture the parser disagrees with.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from real_servers import FRAMEWORKS, PLAN, Framework, expected_events  # noqa: E402

import sse_course  # noqa: E402
from sse_course import Event, SSEParser  # noqa: E402
from sse_course.classroom.harness import STRATEGIES  # noqa: E402

OUTPUT = ROOT / "sse_course" / "classroom" / "fixtures" / "servers.json"
#: name -> (path, how many planned events it sends, what it shows)
STREAMS = {
    "stream": ("/stream", len(PLAN), "three events: a named one with retry, two data lines, a JSON payload"),
    "pings": ("/pings", 2, "two events with keep-alive ping comments between them"),
}
FIXED_TIME = b"2000-01-01 00:00:00.000000+00:00"
TIMESTAMP = re.compile(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00:00")
PING = re.compile(rb": ping[^\r\n]*(\r\n|\r|\n)\1")  # a ping comment and the blank line after it
PING_RUN = re.compile(rb"(?:: ping[^\r\n]*(\r\n|\r|\n)\1)+")
TIMEOUT = 10.0


def normalise(raw: bytes) -> bytes:
    """Fix ping timestamps, and keep one ping of each run: what timing decides goes."""
    return PING_RUN.sub(first_ping, TIMESTAMP.sub(FIXED_TIME, raw))


def first_ping(run: re.Match[bytes]) -> bytes:
    """The first ping of a run of pings (the run starts with one)."""
    ping = PING.match(run.group(0))
    assert ping is not None
    return ping.group(0)


def record(url: str, path: str) -> bytes:
    """The body of ``GET url+path`` as written (no content coding), whole."""
    with httpx.Client(timeout=TIMEOUT) as client:
        with client.stream("GET", url + path, headers={"Accept-Encoding": "identity"}) as response:
            response.raise_for_status()
            return b"".join(response.iter_raw())


def as_spec(event: Event) -> dict:
    spec: dict = {"data": event.data, "last_event_id": event.last_event_id}
    if event.type != "message":
        spec["type"] = event.type
    if event.retry is not None:
        spec["retry"] = event.retry
    return spec


def fixtures_of(framework: Framework) -> list[dict]:
    """Record each stream of one framework and pair it with its planned events."""
    found = []
    with framework.running([]) as url:
        for name, (path, count, about) in STREAMS.items():
            raw = normalise(record(url, path))
            expected = expected_events(framework.encode_json)[:count]
            parser = SSEParser("strict")
            parsed = parser.feed(raw) + parser.close()
            if parsed != expected:
                raise SystemExit(f"{framework.name} {path}: the parser gives {parsed}, the plan says {expected}")
            found.append(
                {
                    "name": f"{framework.name}-{name}",
                    "about": f"{about}, as {framework.name} {framework.version} writes it"
                    + ("; pings normalised: one per run, timestamp fixed" if name == "pings" else ""),
                    "framework": framework.versions(),
                    "recorded_from": f"GET {path}",
                    "input": raw.decode("utf-8"),
                    "expect": {"events": [as_spec(event) for event in expected]},
                }
            )
    return found


def family() -> dict:
    return {
        "family": "servers",
        "about": "What real SSE servers write (sse-starlette, FastAPI, aiohttp-sse), recorded on loopback "
        "by tools/record_server_fixtures.py: CRLF or LF line ends, field order, pings, JSON data.",
        "parser_version": sse_course.__version__,
        "checked_under": list(STRATEGIES),
        "fixtures": [fixture for framework in FRAMEWORKS.values() for fixture in fixtures_of(framework)],
    }


def render(data: dict) -> str:
    return json.dumps(data, indent=2) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    args = parser.parse_args(argv)
    text = render(family())
    if args.check:
        same = OUTPUT.exists() and OUTPUT.read_text(encoding="utf-8") == text
        print(f"{OUTPUT.relative_to(ROOT)} {'matches' if same else 'differs from'} a fresh recording")
        return 0 if same else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
