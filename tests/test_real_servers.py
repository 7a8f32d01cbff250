"""The client against real SSE servers on 127.0.0.1: sse-starlette, FastAPI's own SSE, aiohttp-sse.

Each server is started once per module (in a thread, on a free loopback
port) and read by the sync and the async client: the planned events, the
stream's ``retry``, reconnection with ``Last-Event-ID`` after each dropped
response, the 204 that ends it, and keep-alive pings as comments. The
recorded ``servers`` fixtures are checked to be what the installed servers write.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest
from real_servers import FRAMEWORKS, Framework, expected_events

from sse_course import Event
from sse_course.classroom.fixtures import load_family
from sse_course.classroom.harness import STRATEGIES
from sse_course.client import MIN_RECONNECTION_MS, AsyncEventSourceClient, EventSourceClient
from sse_course.events import Comment

MODES = ("sync", "async")
TIMEOUT = 10.0


@pytest.fixture(scope="module", params=list(FRAMEWORKS))
def server(request: pytest.FixtureRequest) -> Iterator[tuple[Framework, str, list]]:
    framework = FRAMEWORKS[request.param]
    seen: list = []
    with framework.running(seen) as url:
        yield framework, url, seen


def read(mode: str, url: str, **options: Any) -> tuple[list[Any], list[float], Any]:
    """Everything the client delivers, the delays it chose, and the client."""
    delays: list[float] = []
    if mode == "sync":
        with EventSourceClient(url, sleep=delays.append, **options) as source:
            return list(source), delays, source

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    async def main() -> tuple[list[Any], list[float], Any]:
        async with AsyncEventSourceClient(url, sleep=sleep, **options) as source:
            return [item async for item in source], delays, source

    return asyncio.run(asyncio.wait_for(main(), TIMEOUT))


@pytest.mark.parametrize(
    "path,sent",
    [
        pytest.param("/stream", [None, "3"], id="whole-then-204"),
        pytest.param("/stream?drop=1", [None, "1", "2", "3"], id="dropped-after-each-event"),
    ],
)
@pytest.mark.real_servers
@pytest.mark.parametrize("mode", MODES)
def test_events_retry_resumption_and_the_final_204(
    server: tuple[Framework, str, list], mode: str, path: str, sent: list[str | None]
) -> None:
    framework, url, seen = server
    seen.clear()
    items, delays, source = read(mode, url + path)
    assert items == expected_events(framework.encode_json)
    assert seen == sent, "the Last-Event-ID of each request"
    # the stream's retry is kept; the wait is raised to the floor
    assert source.reconnection_ms == 25 and delays == [MIN_RECONNECTION_MS / 1000] * (len(sent) - 1)
    assert source.ended == "204"


@pytest.mark.real_servers
@pytest.mark.parametrize("mode", MODES)
def test_pings_are_comments_between_the_events(server: tuple[Framework, str, list], mode: str) -> None:
    framework, url, seen = server
    items, _, _ = read(mode, url + "/pings", comments=True, max_reconnects=0)
    events = [item for item in items if isinstance(item, Event)]
    assert events == expected_events(framework.encode_json)[:2]
    between = items[1:-1]
    assert between and all(isinstance(item, Comment) and item.text.startswith("ping") for item in between)


# --- the recorded fixtures ------------------------------------------------------------------


def family_file() -> dict:
    text = resources.files("sse_course.classroom.fixtures").joinpath("servers.json").read_text(encoding="utf-8")
    return json.loads(text)


def test_every_framework_is_recorded_with_its_version_under_every_strategy() -> None:
    recorded = family_file()
    assert set(recorded["checked_under"]) == set(STRATEGIES)
    names = {spec["framework"]["name"] for spec in recorded["fixtures"]}
    assert names == set(FRAMEWORKS)
    for spec in recorded["fixtures"]:
        assert spec["framework"]["version"] and spec["framework"]["server"], spec["name"]
    assert len(load_family("servers")) == len(recorded["fixtures"])


def require_recorded_with(recorded: dict[str, str], installed: dict[str, str]) -> None:
    """Skip locally, fail in CI, when the fixtures were recorded with other server versions:
    CI installs requirements.txt's ranges, and the recording must be of those."""
    if recorded == installed:
        return
    mismatch = f"recorded with {recorded}, installed {installed}: re-record (tools/record_server_fixtures.py)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and the servers' fixtures are stale: {mismatch}")
    pytest.skip(mismatch)


@pytest.mark.parametrize("ci,outcome", [("true", pytest.fail.Exception), ("", pytest.skip.Exception)])
def test_a_stale_recording_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setenv("CI", ci)
    require_recorded_with({"version": "1.0"}, {"version": "1.0"})
    with pytest.raises(outcome, match="'1.0'.*'2.0'"):
        require_recorded_with({"version": "1.0"}, {"version": "2.0"})


@pytest.mark.real_servers
def test_the_fixtures_are_what_the_installed_servers_write(server: tuple[Framework, str, list]) -> None:
    from record_server_fixtures import fixtures_of  # tools/ (pyproject.toml puts it on the path)

    framework, _, _ = server
    recorded = [spec for spec in family_file()["fixtures"] if spec["framework"]["name"] == framework.name]
    require_recorded_with(recorded[0]["framework"], framework.versions())
    assert fixtures_of(framework) == recorded
