"""The benchmark commands run and print what they promise (figures are not asserted), and refuse
what they could not measure."""

from __future__ import annotations

import dis
import subprocess
import sys

import pytest

import rulesengine
from benchmarks import adapters, arguments, callgrind, run, scaling
from benchmarks import validate as validation


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


def _three() -> int:
    one = 1
    two = one + one
    return two + one


def test_the_bytecode_count_is_of_what_runs_and_where() -> None:
    def play(seed: int) -> int:  # seed calls of `_three`, one decision each
        for _ in range(seed):
            _three()
        return seed

    small, large = run.count_bytecodes(play, range(2, 3)), run.count_bytecodes(play, range(12, 13))
    three = f"_three (test_benchmarks.py:{_three.__code__.co_firstlineno})"
    per_call = dict(large.by_function)[three]
    assert per_call == dict(small.by_function)[three] and large.by_function[0][0] == three
    straight_line = len(list(dis.get_instructions(_three)))  # `_three` runs every instruction it has
    assert per_call in (straight_line - 1, straight_line)  # (the first one, RESUME, may go unreported)
    # 10 decisions more cost 10 calls and 10 passes of the loop (a few bytecodes each) more
    each = (large.per_decision * 12 - small.per_decision * 2) / 10
    assert per_call < each <= per_call + 10


def test_the_benchmark_prints_bytecodes_of_both_sides_when_asked(capsys) -> None:
    run.main(["--game", "padan", "--seconds", "0.02", "--rounds", "1", "--bytecodes"])
    out = capsys.readouterr().out
    engine, hand = out.split("bytecodes a decision: engine ")[1].split(" (ratio")[0].split(", hand-written ")
    assert float(engine.replace(",", "")) > 0 and float(hand.replace(",", "")) > 0
    assert "_step_play_card" in out.split("engine: ")[1] and "apply (padan.py" in out.split("hand: ")[1]


def test_callgrind_counts_the_instructions_a_program_executes() -> None:
    small, out = callgrind.instructions([sys.executable, "-c", "print('done')"])
    large, _ = callgrind.instructions([sys.executable, "-c", "print(sum(range(300_000)))"])
    assert out == "done\n"
    assert large > small + 10_000_000  # some 40 instructions an addition, on top of start-up
    with pytest.raises(subprocess.CalledProcessError):
        callgrind.instructions([sys.executable, "-c", "raise SystemExit(1)"])
    assert callgrind.instructions([sys.executable, "-c", "raise SystemExit(1)"], check=False)[0] > 0


# Values that would make a measuring loop never end (NaN, infinity) or that it would hide
# (nothing to measure): each refused before anything is measured.
BAD_SECONDS = ["nan", "inf", "-inf", "1e400", "0", "-1", "86401", "four"]
BAD_ROUNDS = ["0", "-5", "10001", "1000000000", "1.5", "many"]
COMMANDS = {"run": run, "adapters": adapters, "scaling": scaling, "validate": validation}


def _usage_error(command: str, argv: list[str], capsys) -> str:
    """The message of the usage error `command` stops with (exit code 2), having printed nothing."""
    with pytest.raises(SystemExit) as stop:
        COMMANDS[command].main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    return err


@pytest.mark.parametrize("command", ["run", "adapters", "scaling"])
@pytest.mark.parametrize("value", BAD_SECONDS)
def test_a_duration_that_is_not_finite_and_positive_is_a_usage_error(command: str, value: str, capsys) -> None:
    err = _usage_error(command, [f"--seconds={value}"], capsys)
    assert "argument --seconds: expected" in err and repr(value) in err


@pytest.mark.parametrize("command", ["run", "adapters", "validate"])
@pytest.mark.parametrize("value", BAD_ROUNDS)
def test_a_count_of_rounds_out_of_range_is_a_usage_error(command: str, value: str, capsys) -> None:
    err = _usage_error(command, [f"--rounds={value}"], capsys)
    assert "argument --rounds: expected" in err and repr(value) in err


def test_the_argument_types_take_the_values_at_their_bounds() -> None:
    assert arguments.seconds("0.001") == 0.001 and arguments.seconds("86400") == arguments.MOST_SECONDS
    assert arguments.rounds("1") == 1 and arguments.rounds("10000") == arguments.MOST_ROUNDS


@pytest.mark.parametrize(
    ("argv", "refused"),
    [
        (["--game", "nope"], "argument --game: unknown ruleset 'nope'"),
        (["--game", "padan"], "argument --players: Padan is for 2 to 2 players, not 3"),  # 3 is the default
        (["--players", "0"], "argument --players: Pan is for 2 to 4 players, not 0"),
        (["--players", "-1"], "argument --players: Pan is for 2 to 4 players, not -1"),
        (["--players", "99"], "argument --players: Pan is for 2 to 4 players, not 99"),
    ],
)
def test_the_adapter_benchmark_refuses_a_game_it_cannot_play(argv: list[str], refused: str, capsys) -> None:
    assert refused in _usage_error("adapters", [*argv, "--seconds", "0.01", "--rounds", "1"], capsys)


def test_the_adapter_benchmark_refuses_a_file_that_is_no_rule_file(tmp_path, capsys) -> None:
    accounts = tmp_path / "passwd"
    accounts.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    err = _usage_error("adapters", ["--game", str(accounts), "--seconds", "0.01"], capsys)
    assert f"argument --game: {accounts}:1:1: error[RE010]" in err


def test_the_validation_benchmark_refuses_a_path_that_names_nothing(capsys) -> None:
    err = _usage_error("validate", ["--rounds", "1", "examples", "no/such/path"], capsys)
    assert "argument targets: no such file or folder: no/such/path" in err and "examples" not in err


def test_a_run_that_found_problems_checked_the_files_and_one_that_failed_did_not() -> None:
    def python(code: str) -> list[str]:
        return [sys.executable, "-c", code]

    processor, wall = validation.run_once(python("raise SystemExit(1)"))  # problems found: timed
    assert processor >= 0 and wall > 0
    for code, reason in [
        ("raise SystemExit(2)", "exit code 2"),  # a usage error
        ("import sys; sys.exit(-1)", "exit code 255"),  # yamllint on a file it cannot read
        ("raise ValueError('cannot decode byte 0xe9')", "exit code 1: ValueError: cannot decode byte 0xe9"),
    ]:
        with pytest.raises(validation.CommandFailed, match=reason):
            validation.run_once(python(code))


def test_the_validation_benchmark_prints_no_figures_when_validate_checks_nothing(tmp_path, capsys) -> None:
    # An empty folder: `rulesengine validate` stops with a usage error (no rule files found).
    with pytest.raises(SystemExit) as stop:
        validation.main(["--rounds", "1", str(tmp_path)])
    assert stop.value.code == 1
    out, err = capsys.readouterr()
    assert "rulesengine validate did not check the files, exit code 2: Error: no rule files found" in err
    assert "no figures" in err and "validate / yamllint" not in out


def test_the_validation_benchmark_prints_no_ratio_when_yamllint_fails(monkeypatch, capsys) -> None:
    def run_once(command: list[str]) -> tuple[float, float]:
        if "rulesengine.cli" in command:
            return 0.5, 0.6
        raise validation.CommandFailed("exit code 255: [Errno 13] Permission denied: 'examples/game.yaml'")

    monkeypatch.setattr(validation, "run_once", run_once)
    monkeypatch.setattr(validation.shutil, "which", lambda name: "/usr/bin/" + name)
    with pytest.raises(SystemExit) as stop:
        validation.main(["--rounds", "1", "examples"])
    assert stop.value.code == 1
    out, err = capsys.readouterr()
    assert "yamllint did not check the files, exit code 255: [Errno 13] Permission denied" in err
    assert "validate / yamllint" not in out
