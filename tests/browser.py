"""Headless Chromium from the distribution's packages, for the tests that drive a real browser."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NO_CHROMIUM = "no Chromium installed (.ci/run installs it from the distribution's packages)"


@contextlib.contextmanager
def launched(playwright: Any) -> Iterator[Any]:
    """The browser, started through the `playwright.sync_api` module given (skipped without it)."""
    with playwright.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()
