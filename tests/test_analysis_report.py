"""The HTML report in a real headless browser: it loads without console errors, its plots
render, and the data in the page equals the JSON of the same run."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulesengine.cli import main
from tests.browser import CHROMIUM, NO_CHROMIUM, launched

DEAD = Path(__file__).parent / "analysis" / "dead_rules.yaml"

pytest.importorskip("matplotlib", reason="the report needs the extra 'report'")
playwright = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright (extra 'test')")
if CHROMIUM is None:
    pytest.skip(NO_CHROMIUM, allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    with launched(playwright) as chromium:
        yield chromium


def _open(browser, path):
    page = browser.new_page()
    problems = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.route("**/*", lambda route: route.abort() if not route.request.url.startswith("file:") else route.continue_())
    page.goto(path.as_uri())
    return page, problems


def _not_blank(png: bytes) -> bool:
    from matplotlib import image

    pixels = image.imread(io.BytesIO(png), format="png")[..., :3]
    dark = (pixels.sum(axis=-1) < 1.5).mean()  # share of clearly non-white pixels
    return 0.01 < dark < 0.9


def test_report_renders_its_plots_and_holds_the_json(browser, tmp_path):
    report = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["simulate", str(DEAD), "-p", "3", "-n", "12", "--json", "--report", str(report)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    page, problems = _open(browser, report)
    embedded = json.loads(page.locator("#analysis-data").text_content())
    assert embedded == data
    plots = page.locator("figure.plot svg")
    assert plots.count() >= 5  # seats, roles, length, endings, moves
    assert "ended at the declared turn limit" in page.locator(".warning").first.text_content()
    for name in ("seats", "roles", "length", "endings", "moves"):
        figure = page.locator(f"#plot-{name}")
        box = figure.bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 150
        assert _not_blank(figure.screenshot())
    cells = page.locator("#table-seats tr").all()[1:]
    shown = [[c.get_attribute("data-value") for c in row.locator("td").all()[:4]] for row in cells]
    assert shown == [[str(s["seat"]), str(s["wins"]), str(s["losses"]), str(s["draws"])] for s in data["seats"]]
    assert problems == []
    page.close()


def test_comparison_report_renders(browser, tmp_path):
    report = tmp_path / "compare.html"
    result = CliRunner().invoke(
        main, ["compare", str(DEAD), "-O", "bonus=true", "-n", "8", "--json", "--report", str(report)]
    )
    assert result.exit_code == 0, result.output
    page, problems = _open(browser, report)
    assert json.loads(page.locator("#analysis-data").text_content()) == json.loads(result.output)
    assert _not_blank(page.locator("#plot-seats").screenshot())
    assert page.locator("#table-comparison tr").count() == len(json.loads(result.output)["rows"]) + 1
    assert problems == []
    page.close()
