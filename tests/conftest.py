"""Hypothesis settings (deterministic in CI, wider locally), and the full suite's
plugins only for the full suite.

``pytest`` with no path (as CI and the README run it) runs every test path in
pyproject.toml: the unit tests, and every notebook under strict nbval
(``--nbval --nbval-current-env``) on two xdist workers, one notebook per worker
(``-n 2 --dist loadfile``). ``pytest tests/test_x.py::test_y`` runs just that, in
one process, without nbval or workers (add the options to a run to have them).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")

#: What a run with no path adds, each option (its name, its default) to its value; an option given
#: on the command line (``pytest -n 0``) is left as given.
FULL_SUITE = {
    ("nbval", False): True,
    ("nbval_current_env", False): True,
    ("numprocesses", None): 2,
    ("dist", "no"): "loadfile",
}


def full_suite(config: pytest.Config) -> bool:
    """Whether this run is the whole suite: no path given, so pyproject.toml's testpaths."""
    return config.args_source is pytest.Config.ArgsSource.TESTPATHS and not hasattr(config, "workerinput")


@pytest.hookimpl(tryfirst=True)  # before xdist reads -n, and before nbval collects
def pytest_cmdline_main(config: pytest.Config) -> None:
    if full_suite(config):
        for (name, default), value in FULL_SUITE.items():
            if getattr(config.option, name, default) == default:
                setattr(config.option, name, value)
