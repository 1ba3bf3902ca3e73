"""The benchmark commands run and print what they promise (figures are not asserted)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import rulesengine
from benchmarks import adapters, callgrind


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


def test_the_scaling_benchmark_grows_the_deck_and_measures_a_state(tmp_path) -> None:
    from benchmarks import scaling

    small = rulesengine.make_game(scaling.long_patrols(5, tmp_path), players=4)
    large = rulesengine.make_game(scaling.long_patrols(20, tmp_path), players=4)
    assert (small.program.num_cards, large.program.num_cards) == (25, 100)
    assert 0 < scaling.bytes_per_state(small, track=False, copies=20) < scaling.bytes_per_state(large, track=False)
    assert scaling.bytes_per_state(small, track=False) < scaling.bytes_per_state(small, track=True)
    assert scaling.microseconds_per_decision(small, seconds=0.01) > 0


def test_callgrind_counts_the_instructions_a_program_executes() -> None:
    small, out = callgrind.instructions([sys.executable, "-c", "print('done')"])
    large, _ = callgrind.instructions([sys.executable, "-c", "print(sum(range(300_000)))"])
    assert out == "done\n"
    assert large > small + 10_000_000  # some 40 instructions an addition, on top of start-up
    with pytest.raises(subprocess.CalledProcessError):
        callgrind.instructions([sys.executable, "-c", "raise SystemExit(1)"])
    assert callgrind.instructions([sys.executable, "-c", "raise SystemExit(1)"], check=False)[0] > 0
