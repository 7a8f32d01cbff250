"""``pytest`` with no path is the full suite (nbval, two workers); with a path, one process.

The options tests/conftest.py adds are checked on stand-in configs, so the check
costs no second pytest run."""

from __future__ import annotations

from types import SimpleNamespace

import conftest  # the module pytest loaded as this folder's conftest
import pytest

DEFAULTS = {"nbval": False, "nbval_current_env": False, "numprocesses": None, "dist": "no"}


def options_after(source: pytest.Config.ArgsSource, worker: bool = False, **given: object) -> dict[str, object]:
    config = SimpleNamespace(args_source=source, option=SimpleNamespace(**{**DEFAULTS, **given}))
    if worker:
        config.workerinput = {}
    conftest.pytest_cmdline_main(config)  # type: ignore[arg-type]
    return vars(config.option)


def test_no_path_runs_every_notebook_under_nbval_on_two_workers_one_notebook_each() -> None:
    after = options_after(pytest.Config.ArgsSource.TESTPATHS)
    assert after == {"nbval": True, "nbval_current_env": True, "numprocesses": 2, "dist": "loadfile"}


def test_a_path_or_a_worker_gets_nothing_added_and_a_given_option_is_kept() -> None:
    assert options_after(pytest.Config.ArgsSource.ARGS) == DEFAULTS
    assert options_after(pytest.Config.ArgsSource.TESTPATHS, worker=True) == DEFAULTS
    assert options_after(pytest.Config.ArgsSource.TESTPATHS, numprocesses=0)["numprocesses"] == 0
