"""The suite tests what users install: under `.ci/run` the package comes from the wheel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rulesengine
from tests.conftest import ROOT, TESTING_INSTALLED, child_environment


@pytest.mark.skipif(not TESTING_INSTALLED, reason="only when the suite is asked to test the installed package")
def test_the_package_under_test_is_the_installed_one():
    here = Path(rulesengine.__file__).resolve()
    assert not here.is_relative_to(ROOT), here
    child = subprocess.run(
        [sys.executable, "-c", "import rulesengine; print(rulesengine.__file__)"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_environment(),
        timeout=60,
    )
    assert Path(child.stdout.strip()).resolve() == here
    # the grammar and the shipped rulesets come with the package, not from the checkout
    assert rulesengine.make_game("pan").num_players >= 2
