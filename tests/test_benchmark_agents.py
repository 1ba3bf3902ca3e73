"""The strength benchmark's bookkeeping: a results file resumes a run, a bad line is named."""

from __future__ import annotations

import json

import pytest

from benchmarks import agents as bench


def fake_play(task: dict) -> dict:
    """A match whose result follows from its number: ISMCTS wins the even ones."""
    return {**task, "value": 1 if task["match"] % 2 == 0 else -1, "seconds": 0.5, "iterations_done": 100}


def test_a_results_file_resumes_the_run_and_only_missing_matches_are_played(tmp_path, monkeypatch, capsys):
    played: list[tuple[str, str, int]] = []

    def recording(task: dict) -> dict:
        played.append((task["game"], task["opponent"], task["match"]))
        return fake_play(task)

    monkeypatch.setattr(bench, "play_one", recording)
    results = str(tmp_path / "strength.jsonl")
    bench.strength(["padan"], 3, 10, 4, {"target": "5"}, results=results)
    assert sorted(played) == sorted(("padan", o, k) for o in bench.OPPONENTS for k in range(3))
    played.clear()
    bench.strength(["padan"], 5, 10, 4, {"target": "5"}, results=results)
    assert sorted(played) == sorted(("padan", o, k) for o in bench.OPPONENTS for k in (3, 4))
    lines = [json.loads(line) for line in open(results, encoding="utf-8")]
    assert len(lines) == 10
    table = capsys.readouterr().out.splitlines()
    random_row = [row for row in table if row.startswith("padan") and " random " in row][-1]  # the second run's
    assert random_row.split()[2:5] == ["3", "2", "0"]  # matches 0, 2, 4 won; 1, 3 lost


def test_other_settings_in_the_same_file_are_not_counted(tmp_path, monkeypatch):
    played: list[int] = []
    monkeypatch.setattr(bench, "play_one", lambda task: played.append(task["match"]) or fake_play(task))
    results = str(tmp_path / "strength.jsonl")
    bench.strength(["padan"], 2, 10, 4, {}, results=results)
    bench.strength(["padan"], 2, 20, 4, {}, results=results)  # other iteration count: played again
    assert len(played) == 8


TASK = {"game": "padan", "opponent": "random", "iterations": 10, "samples": 4, "options": {}, "match": 0}


@pytest.mark.parametrize("line", ["{broken", "[1, 2]", '{"match": 3}', json.dumps({**TASK, "options": 5}), "\udcff"])
def test_a_corrupt_line_is_reported_with_its_position(tmp_path, line):
    results = tmp_path / "strength.jsonl"
    results.write_text(json.dumps(fake_play(TASK)) + "\n" + line + "\n", encoding="utf-8", errors="surrogateescape")
    with pytest.raises(SystemExit, match=r"strength.jsonl:2: not a result line"):
        bench.read_results(str(results))


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--matches", "0"], "argument --matches: expected from 1 to 1,000,000 matches, not '0'"),
        (["--iterations", "x"], "argument --iterations: expected a whole number of iterations, not 'x'"),
        (["--workers", "-2"], "argument --workers: expected from 1 to 1,024 workers"),
        (["-o", "target"], "argument -o/--option: expected NAME=VALUE, not 'target'"),
        (["-o", "nonsense=1"], "argument -o/--option: no game of this run has an option 'nonsense'"),
        (["--game", "padan", "-o", "target=abc"], "argument -o/--option: option 'target' takes a whole number"),
    ],
)
def test_arguments_no_run_could_use_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        bench.main(argv)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_summary_gives_the_wilson_interval_of_the_wins():
    records = [fake_play({"match": k}) for k in range(10)]
    summary = bench.summary(records)
    assert (summary["wins"], summary["losses"], summary["draws"]) == (5, 5, 0)
    assert summary["low"] < 0.5 < summary["high"]
    assert summary["iterations_per_second"] == pytest.approx(200.0)
