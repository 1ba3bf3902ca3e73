"""Shared test settings: hypothesis profiles sized for a 2-core CI machine, which
rulesengine the suite tests, and a check that no test leaves another Ctrl-C handler behind.

With RULESENGINE_TEST_INSTALLED=1 (as `.ci/run` sets it) the suite tests the installed
package, the wheel that users get, not the checkout beside it: the checkout's folder is
kept off the search path while `rulesengine` is first imported, and child processes that
tests start (`python -m rulesengine.cli ...`) get PYTHONSAFEPATH, so their working folder
is not searched either. Without it (development), the checkout is tested as usual.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
TESTING_INSTALLED = os.environ.get("RULESENGINE_TEST_INSTALLED") == "1"


def _import_the_installed_package() -> None:
    kept = sys.path[:]
    sys.path[:] = [entry for entry in kept if Path(entry or ".").resolve() != ROOT]
    try:
        import rulesengine  # noqa: F401  (cached in sys.modules: every later import gets this one)
    finally:
        sys.path[:] = kept  # the tests' own helpers (tests.*) are still imported from the checkout


if TESTING_INSTALLED:
    _import_the_installed_package()
    os.environ["PYTHONSAFEPATH"] = "1"


def child_environment() -> dict[str, str]:
    """The environment for a child process that runs rulesengine: the package under test."""
    if TESTING_INSTALLED:
        return dict(os.environ)
    return {**os.environ, "PYTHONPATH": str(ROOT)}


settings.register_profile(
    "default",
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("default")


def refuse_listing(monkeypatch, name: str) -> None:
    """Make the system refuse to list every folder called `name`, as it refuses a user without
    permission (the tests may run as root, who may read everything)."""
    listing = os.scandir

    def refusing(path: str | os.PathLike[str] = ".") -> os._ScandirIterator:
        if Path(path).name == name:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", refusing)


@pytest.fixture(autouse=True)
def _ctrl_c_handling_is_left_as_found():
    """A test that leaves another Ctrl-C handler behind (a server, a run stopped half-way) fails
    itself, instead of a later test that relies on Ctrl-C being Python's own."""
    before = signal.getsignal(signal.SIGINT)
    yield
    after = signal.getsignal(signal.SIGINT)
    if after is not before:
        signal.signal(signal.SIGINT, before)
        pytest.fail(f"the test left {after!r} as the Ctrl-C handler (it was {before!r})")
