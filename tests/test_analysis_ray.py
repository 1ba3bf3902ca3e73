"""The Ray backend: a local cluster plays the same matches as one process does."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import rulesengine
from rulesengine.analysis import analyse
from rulesengine.cli import main

ray = pytest.importorskip("ray", reason="the Ray backend needs the extra 'ray'")
TIMING = ("seconds", "matches_per_second", "decisions_per_second", "workers", "backend")


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _without_timing(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in TIMING}


def test_ray_tasks_give_the_statistics_of_one_process(cluster):
    game = rulesengine.make_game("padvinderspel", players=3)
    alone = analyse(game, 12, seed=11, probe=False)
    on_ray = analyse(game, 12, seed=11, workers=2, backend="ray", probe=False)
    assert on_ray["backend"] == "ray" and on_ray["games"] == 12
    assert _without_timing(on_ray) == _without_timing(alone)


def test_simulate_command_runs_on_ray(cluster):
    result = CliRunner().invoke(
        main, ["simulate", "padvinderspel", "-p", "3", "-n", "6", "--backend", "ray", "-j", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    local = CliRunner().invoke(main, ["simulate", "padvinderspel", "-p", "3", "-n", "6", "--json"])
    assert _without_timing(json.loads(result.output)) == _without_timing(json.loads(local.output))
