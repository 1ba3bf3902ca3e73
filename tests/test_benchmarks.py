"""The benchmark commands run and print what they promise (figures are not asserted)."""

from __future__ import annotations

import pytest

from benchmarks import adapters


def test_the_adapter_benchmark_prints_both_costs_and_the_step_rate(capsys) -> None:
    pytest.importorskip("pyspiel")
    pytest.importorskip("pettingzoo")
    adapters.main(["--game", "examples/tutorial-game.yaml", "--players", "2", "--seconds", "0.05", "--rounds", "1"])
    out = capsys.readouterr().out
    ratio = float(out.split("÷ native:")[1].split()[0])
    assert ratio > 0 and "PettingZoo AEC" in out and "steps/s" in out


def test_the_adapter_benchmark_counts_decisions_not_chance_draws() -> None:
    play = adapters.native_playout("examples/tutorial-game.yaml", 2)
    decisions = play(5)
    assert decisions > 0 and play(5) == decisions  # the seed fixes the whole playout
