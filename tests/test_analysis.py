"""Balance analysis: match records, statistics, the simulate, compare and check commands,
and stopping with Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

import rulesengine
from rulesengine import engine
from rulesengine.agents import RandomAgent, play_match
from rulesengine.analysis import analyse, make_plan
from rulesengine.analysis.aggregate import _changes
from rulesengine.analysis.playout import Recording, _led_for_good
from rulesengine.cli import main
from tests.conftest import child_environment
from tests.test_step_path import SETTINGS as STEP_SETTINGS

DEAD = Path(__file__).parent / "analysis" / "dead_rules.yaml"
TIMING = ("seconds", "matches_per_second", "decisions_per_second", "workers", "backend")


def _without_timing(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in TIMING}


def _position(text: str, key: str) -> tuple[int, int]:
    """Line and column (1-based) of the first line that starts with `key`, indented."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip().startswith(key) and line.startswith(" "):
            return number, len(line) - len(line.lstrip()) + 1
    raise AssertionError(key)


def _plain_match(game: rulesengine.Game, seed: int) -> rulesengine.State:
    """A match played the plainest way: random bots seeded as the analysis seeds them."""
    agents = [RandomAgent(seed * 1_000 + seat) for seat in range(game.num_players)]
    return play_match(game.new_initial_state(seed=seed, track=False), agents)


def test_recorded_matches_are_the_matches_plain_simulation_plays():
    game = rulesengine.make_game("padvinderspel", players=3)
    plain = [_plain_match(game, seed) for seed in range(5, 13)]  # match k plays from seed 5 + k
    recording = Recording(game, make_plan(game, 8, seed=5))
    records = [recording.play(i) for i in range(8)]
    assert [r["decisions"] for r in records] == [state.steps for state in plain]
    assert [r["returns"] for r in records] == [state.returns() for state in plain]
    assert all(r["triggers"] is not None and sum(r["triggers"]) > 0 for r in records)


def _on_the_general_path(recording: Recording) -> Recording:
    """The same recording, its matches played on the engine's general path only: no step
    functions (so no generated entry functions either) and the direct flow off, so that what
    is recorded comes from the effect segments alone, not from the generated code's hooks."""
    program = recording.recorded.program
    steps_off = attrs.evolve(program, moves=tuple(attrs.evolve(m, step=None) for m in program.moves))
    recording.recorded = rulesengine.Game(steps_off, recording.game.max_steps)
    return recording


@pytest.mark.parametrize(("name", "players", "options"), STEP_SETTINGS, ids=lambda v: Path(str(v)).stem)
@pytest.mark.parametrize(("agents", "max_steps"), [(("random",), 3_000), (("greedy", "random"), 300)])
def test_the_fast_path_records_what_the_general_path_records(name, players, options, agents, max_steps):
    """Trigger firings, phases entered and round ends of every match, as the generated steps
    report them through hooks and as the general path's effect segments report them (a greedy
    agent's evaluations play clones, which must not be counted; its matches are cut short)."""
    game = rulesengine.make_game(name, players=players, options=options, max_steps=max_steps)
    plan = make_plan(game, 3, seed=11, agents=agents)
    fast, general = Recording(game, plan), _on_the_general_path(Recording(game, plan))
    engine.DIRECT_FLOW = False
    try:
        expected = [general.play(i) for i in range(3)]
    finally:
        engine.DIRECT_FLOW = True
    assert [fast.play(i) for i in range(3)] == expected


def test_statistics_add_up():
    data = analyse(rulesengine.make_game("padvinderspel", players=3), 30, seed=2, probe=False)
    assert data["games"] == 30 and not data["partial"]
    for seat in data["seats"]:
        assert seat["wins"] + seat["losses"] + seat["draws"] == 30
        assert seat["ci95"][0] <= seat["win_rate"] <= seat["ci95"][1]
    decisions = data["length"]["decisions"]
    assert decisions["count"] == 30 and decisions["min"] <= decisions["p50"] <= decisions["max"]
    total = decisions["mean"] * 30
    assert sum(m["chosen"] for m in data["moves"]) == pytest.approx(total)
    assert all(m["legal"] >= m["chosen"] for m in data["moves"])
    ended = sum(data["endings"]["rounds"].values())
    assert ended == pytest.approx(data["length"]["rounds"]["mean"] * 30)
    assert sum(data["length"]["histogram"]["counts"]) == 30
    roles = {r["role"]: r for r in data["roles"]}
    assert roles["first mover"]["trials"] == 30 and "dealer" in roles
    assert data["branching"]["max"] >= data["branching"]["mean"] >= 1
    assert data["coverage"]["trigger_firings"]["going_out"] > 0


def test_several_workers_give_the_same_analysis():
    game = rulesengine.make_game("padvinderspel", players=3)
    alone = analyse(game, 16, seed=9, probe=False)
    shared = analyse(game, 16, seed=9, workers=2, probe=False)
    assert _without_timing(shared) == _without_timing(alone)


def test_lead_changes_and_when_the_winner_led_for_good():
    assert _changes([0, None, 0, 1, 1, None, 0]) == 2
    ends = [("normal", 10, 1), ("normal", 20, 0), ("normal", 30, 0), ("normal", 40, 0)]
    assert _led_for_good(ends, [1.0, -1.0], 40) == 20 / 40
    assert _led_for_good(ends, [-1.0, 1.0], 40) is None  # the winner is not ahead at the end
    assert _led_for_good(ends, [1.0, 1.0, -1.0], 40) is None  # no single winner


def test_mixed_agents_rotate_seats_and_show_a_skill_signal():
    data = analyse(rulesengine.make_game("padvinderspel", players=2), 20, agents=("random", "greedy"), probe=False)
    skill = {entry["agent"]: entry for entry in data["skill"]}
    assert skill["random"]["trials"] == skill["greedy"]["trials"] == 20
    assert skill["random"]["wins"] + skill["greedy"]["wins"] == sum(s["wins"] for s in data["seats"])


def test_check_points_at_the_rules_that_never_came_into_play():
    text = DEAD.read_text()
    result = CliRunner().invoke(main, ["check", str(DEAD), "-n", "10", "--format", "github"])
    assert result.exit_code == 1, result.output
    found = {}
    for line in result.output.splitlines():
        kind, settings = line.split("::")[1].split(" ", 1)
        fields = dict(part.split("=", 1) for part in settings.split(","))
        found[fields["title"]] = (kind, int(fields["line"]), int(fields["col"]))
    assert found["RE401"][1:] == _position(text, "limit:")
    assert found["RE402"][1:] == _position(text, "never:")
    assert found["RE403"][1:] == _position(text, "nothing:")
    assert found["RE404"][1:] == _position(text, "unused:")
    assert found["RE405"][1:] == _position(text, "bonus:")
    kinds = {code: kind for code, (kind, _, _) in found.items()}
    # the turn limit, the dead move and the silent trigger fail; the phase and the option only warn
    assert kinds == {"RE401": "error", "RE402": "error", "RE403": "error", "RE404": "warning", "RE405": "warning"}


def test_check_passes_a_sound_setting_and_strict_fails_on_warnings():
    ok = CliRunner().invoke(main, ["check", "padvinderspel", "-n", "6", "-p", "3", "--limit-share", "0.5"])
    assert ok.exit_code == 0, ok.output
    assert "1 setting(s)" in ok.output and "passed" in ok.output
    strict = CliRunner().invoke(
        main, ["check", str(DEAD), "-n", "4", "--limit-share", "1", "--format", "json", "-o", "bonus=true"]
    )
    codes = [d["code"] for d in json.loads(strict.output)]
    assert "RE401" not in codes and "RE402" in codes


def test_a_rule_file_says_how_many_rounds_may_end_at_its_limit_and_the_command_line_overrides_it(tmp_path):
    # every round of the dead rules ends at its turn limit
    accepting = tmp_path / "accepting.yaml"
    text = DEAD.read_text(encoding="utf-8")
    accepting.write_text(text.replace("    turns: 3\n", "    turns: 3\n    accepted_share: 1\n"), encoding="utf-8")
    assert rulesengine.api.load_ruleset(str(accepting)).round_limit_share == 1.0

    def limit_findings(path: Path, *more: str) -> list[dict]:
        result = CliRunner().invoke(main, ["check", str(path), "-n", "4", "--format", "json", *more])
        return [d for d in json.loads(result.output) if d["code"] == "RE401"]

    assert limit_findings(accepting) == []
    [overridden] = limit_findings(accepting, "--limit-share", "0.5")
    assert "threshold 50.0%" in overridden["message"]
    [by_default] = limit_findings(DEAD)  # no share in the file: the default 5 %
    assert "threshold 5.0%" in by_default["message"] and "round.limit.accepted_share" in by_default["hint"]


def test_the_shipped_rulesets_pass_check_as_they_are():
    for name in ("pan", "padan", "padvinderspel"):
        result = CliRunner().invoke(main, ["check", name, "-n", "40", "--format", "json"])
        problems = json.loads(result.output)
        assert result.exit_code == 0 and not [p for p in problems if p["severity"] == "error"], (name, problems)


def test_simulate_writes_json_and_one_line_per_match(tmp_path):
    matches = tmp_path / "matches.jsonl"
    result = CliRunner().invoke(main, ["simulate", str(DEAD), "-n", "8", "--json", "--matches", str(matches)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["ruleset"] == "Dead rules" and data["players"] == 2 and len(data["sha256"]) == 64
    assert data["ruleset_sha256"] == rulesengine.api.ruleset_digest(DEAD)
    assert data["options"] == {"bonus": False} and data["engine_version"] == rulesengine.__version__
    assert data["endings"]["rounds"]["limit"] == 16  # every round of the 8 matches hits the turn limit of 3
    assert any("turn limit" in w for w in data["warnings"])
    assert any("move never was never legal" in w for w in data["warnings"])
    lines = [json.loads(line) for line in matches.read_text().splitlines()]
    assert [line["seed"] for line in lines] == list(range(8))
    assert all(line["round_ends"] == ["limit", "limit"] and line["round_lengths"] == [3, 3] for line in lines)


def test_simulate_text_shows_intervals_and_warnings_first():
    result = CliRunner().invoke(main, ["simulate", str(DEAD), "-n", "5", "-p", "3"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    first_warning = next(i for i, line in enumerate(lines) if line.startswith("warning:"))
    table = next(i for i, line in enumerate(lines) if "95% interval" in line)
    assert first_warning < table  # problems come before the figures
    assert "round ends: normal 0, stuck 0, limit 10, end game 0, engine cap 0" in result.output


def test_compare_finds_a_shorter_match_significant():
    result = CliRunner().invoke(main, ["compare", "padvinderspel", "-p", "3", "-O", "target=40", "-n", "30", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["a"]["options"]["target"] == 150 and data["b"]["options"]["target"] == 40
    rows = {row["statistic"]: row for row in data["rows"]}
    rounds = rows["rounds per match"]
    assert rounds["b"] < rounds["a"] and rounds["significant"] and rounds["p_value"] < 0.05
    assert rows["seat 1 win rate"]["p_value"] is not None
    assert rows["decisions per round"]["p_value"] is None  # rounds of one match are not independent samples


def test_compare_tests_nothing_with_fewer_than_30_matches_a_side():
    result = CliRunner().invoke(main, ["compare", "padan", "padvinderspel", "-n", "3", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["statistic"]: row for row in json.loads(result.output)["rows"]}
    assert rows["decisions per match"]["difference"] != 0  # the games differ a lot ...
    assert all(row["p_value"] is None and not row["significant"] for row in rows.values())  # ... but 3 say little


def test_a_drawn_match_is_one_where_every_return_is_0_not_seat_1s_alone(tmp_path):
    from rulesengine.analysis.compare import compare

    matches = tmp_path / "m.jsonl"
    in_between = Path(__file__).parent.parent / "examples" / "in-between.yaml"  # returns are chips won
    result = CliRunner().invoke(main, ["simulate", str(in_between), "-n", "40", "--json", "--matches", str(matches)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    returns = [json.loads(line)["returns"] for line in matches.read_text().splitlines()]
    drawn = sum(all(r == 0 for r in match) for match in returns)
    assert any(match[0] == 0 and any(match) for match in returns)  # seat 1 staked nothing as others won
    assert data["drawn_matches"] == drawn < data["seats"][0]["draws"]
    rows = {row["statistic"]: row for row in compare(data, data)["rows"]}
    assert rows["draw rate (every return 0)"]["a"] == drawn / 40


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["simulate", "padvinderspel", "-n", "2", "--agents", "random,genius"], "unknown agent 'genius'"),
        (["simulate", "padvinderspel", "-n", "2", "-j", "0"], "positive number"),
        (["simulate", "padvinderspel", "-n", "2", "-j", "lots"], "'auto'"),
        (["simulate", "padvinderspel", "-n", "2", "--standing", "luck"], "choose from: total"),
        (["simulate", "padvinderspel", "-n", "2", "--role", "captain"], "not a variable of type player"),
        (["compare", "padvinderspel", "-n", "2"], "second rule file"),
        (["simulate", "padvinderspel", "-n", "2", "--report", "/no/such/folder/r.html"], "does not exist"),
    ],
)
def test_bad_arguments_are_one_line_errors(arguments, message):
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_stops_soon_and_prints_partial_statistics(tmp_path, workers):
    matches = tmp_path / "matches.jsonl"
    command = [
        sys.executable,
        "-m",
        "rulesengine.cli",
        "simulate",
        "padvinderspel",
        "-n",
        "1000000",
        "-j",
        workers,
        "--json",
        "--matches",
        str(matches),
    ]
    env = child_environment()
    # A suite started in the background (`pytest &`) runs with Ctrl-C ignored, which a child
    # inherits and Python then leaves alone: the child gets the default back, as from a terminal.
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not (matches.exists() and matches.stat().st_size > 0) and time.monotonic() < deadline:
            time.sleep(0.05)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        stopped = time.monotonic() - sent
    finally:
        process.kill()  # never left playing a million matches when the test fails
    assert process.returncode == 130, err
    # about a second on an idle machine; the bound leaves room for a loaded one and still
    # tells stopping soon from going on (a million matches take hours)
    assert stopped < 10.0
    data = json.loads(out)
    assert data["partial"] and 0 < data["games"] < 1_000_000
    assert len(matches.read_text().splitlines()) == data["games"]
    assert "interrupted" in err


@pytest.mark.parametrize("pressed_at", [0, 3])
def test_ctrl_c_while_a_record_is_handed_over_loses_no_record(pressed_at: int) -> None:
    """Ctrl-C pressed while a record is being handed over (a line being written) lets it be
    written and stops the run at its next wait: every match counted is handed over once."""
    from rulesengine.analysis.backends import run

    plan = make_plan(rulesengine.make_game("padan", players=2), games=50)
    handed: list[int] = []

    def on_record(record: dict) -> None:
        if len(handed) == pressed_at:
            os.kill(os.getpid(), signal.SIGINT)  # delivered at once, inside this call
        handed.append(record["index"])

    outcome = run(plan, None, on_record=on_record)
    assert outcome.interrupted
    assert handed == list(range(pressed_at + 1)) and outcome.games == len(handed)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_workers_auto_uses_the_cores_this_process_may_run_on():
    from rulesengine.analysis.backends import resolve_workers

    assert resolve_workers("auto") == len(os.sched_getaffinity(0))
    assert resolve_workers("3") == 3


def test_progress_bar_only_on_a_terminal(monkeypatch):
    import io

    from rulesengine.analysis.progress import progress_bar

    pytest.importorskip("rich", reason="the progress bar needs the extra 'progress'")
    with progress_bar(10, "x", enabled=True) as update:
        assert update is None  # pytest's stderr is not a terminal

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with progress_bar(10, "matches", enabled=True, decisions=lambda: 12_345) as update:
        update(4)
        update(10)
    assert "10/10" in screen.getvalue() and "12,345 decisions" in screen.getvalue()
    with progress_bar(10, "matches", enabled=False) as update:  # --json
        assert update is None


def test_the_decisions_of_the_match_in_progress_can_be_read_while_it_is_played(monkeypatch):
    from rulesengine.analysis import backends

    game = rulesengine.make_game("padan")
    recording = Recording(game, make_plan(game, 2))
    seen: list[int] = []
    real_choose = RandomAgent.choose

    def choose(agent, state):  # what a progress bar reads between two decisions
        seen.append(backends.playing())
        return real_choose(agent, state)

    monkeypatch.setattr(RandomAgent, "choose", choose)
    monkeypatch.setattr(backends, "_recording", recording)
    record = recording.play(0)
    assert seen[0] == 0 and seen == sorted(seen) and seen[-1] == record["decisions"] - 1
    assert recording.playing() == backends.playing() == 0  # between matches
    monkeypatch.setattr(backends, "_recording", None)
    assert backends.playing() == 0


def test_with_a_pool_the_decisions_of_matches_in_progress_are_counted_as_they_are_played():
    from rulesengine.analysis import backends

    # two long matches (greedy agents clone the state at every decision), one per worker
    game = rulesengine.make_game("pan", players=2, max_steps=1000)
    plan = make_plan(game, 2, agents=("greedy",))
    handed: list[dict] = []
    seen: list[tuple[int, int]] = []  # (records handed over, decisions counted) as a progress bar reads them
    reading = threading.Event()

    def read() -> None:
        while not reading.wait(0.05):
            seen.append((len(handed), backends.decisions_played(sum(r["decisions"] for r in handed))))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        outcome = backends.run(plan, None, workers=2, on_record=handed.append)
    finally:
        reading.set()
        reader.join()
    assert outcome.games == 2 and outcome.workers == 2
    before_any_record = [count for records, count in seen if records == 0]
    assert max(before_any_record) > 0  # the matches advanced on the bar before either ended
    counts = [count for _, count in seen]
    assert counts == sorted(counts) and counts[-1] <= sum(r["decisions"] for r in handed)
    assert backends._pool_played is None  # after the run, only this process's matches are read
    assert backends.decisions_played(7) == 7


def test_a_run_stopped_before_any_match_ended_reports_nothing_missing():
    from rulesengine.analysis import Tally, summarise
    from rulesengine.analysis.backends import Outcome
    from rulesengine.analysis.text import render

    game = rulesengine.make_game("padvinderspel", players=3)
    plan = make_plan(game, 10)
    data = summarise(game, plan, Outcome(0, True, 0.1, 1, "local"), Tally(game.program, plan))
    assert data["partial"] and data["games"] == 0 and data["warnings"] == []
    assert "0 of 10 matches" in render(data) and "PARTIAL" in render(data)


def test_compare_renders_its_table_as_text():
    result = CliRunner().invoke(main, ["compare", "padvinderspel", "-p", "3", "-O", "target=40", "-n", "2"])
    assert result.exit_code == 0, result.output
    assert "B - A" in result.output and "%" in result.output  # rates shown as percentages


def test_the_digest_of_a_variant_covers_its_base(tmp_path):
    from tests.test_pipeline import MINIMAL

    base, variant = tmp_path / "g.yaml", tmp_path / "v.yaml"
    base.write_text(MINIMAL)
    variant.write_text("rulesengine: 1\nextends: g.yaml\nname: Variant\n")

    def digests() -> tuple[str, str]:
        data = analyse(rulesengine.make_game(variant), 2, probe=False)
        return data["sha256"], data["ruleset_sha256"]

    first = digests()
    base.write_text(MINIMAL + "\n# the base changed\n")
    second = digests()
    assert first[0] == second[0] and first[1] != second[1]  # the variant's own file did not change
    assert second[1] == rulesengine.api.ruleset_digest(variant)


def test_a_round_cut_short_by_end_game_is_counted(tmp_path):
    from tests.test_pipeline import MINIMAL

    rules = tmp_path / "g.yaml"
    rules.write_text(
        MINIMAL.replace(
            "      - move card to table\n",
            "      - move card to table\n"
            "      - if: round == 2 and size(table) == 1\n"
            '        then: ["score[me] += 5", end game]\n',
        )
    )
    assert "end game" in rules.read_text()
    data = analyse(rulesengine.make_game(rules), 6, probe=False)
    assert data["length"]["rounds"]["mean"] == 2 and data["length"]["decisions"]["mean"] == 3
    assert data["endings"]["rounds"] == {"normal": 6, "stuck": 0, "limit": 0, "end_game": 6, "engine_cap": 0}
    assert data["length"]["round_decisions"]["mean"] == 1.5  # rounds of 2 and 1 decisions


OVERFLOWING = Path(__file__).parent / "analysis" / "overflowing_rules.yaml"


@pytest.mark.parametrize("output_format", ["json", "github"])
def test_an_error_of_the_rules_in_a_match_is_a_finding_of_check(output_format, monkeypatch):
    monkeypatch.setenv("GITHUB_WORKSPACE", str(Path(__file__).parent.parent))  # annotations name files in it
    result = CliRunner().invoke(main, ["check", str(OVERFLOWING), "padan", "-n", "3", "--format", output_format])
    assert result.exit_code == 1
    if output_format == "json":
        [finding] = [d for d in json.loads(result.output) if d["code"] == "RE406"]
        assert (finding["line"], finding["column"]) == (27, 21) and "seed 0" in finding["message"]
    else:
        place = "file=tests/analysis/overflowing_rules.yaml,line=27,col=21"
        assert place in result.output and "RE406" in result.output


@pytest.mark.parametrize("workers", ["1", "2"])
def test_simulate_names_the_seed_of_a_match_that_stopped_on_an_error(workers):
    result = subprocess.run(
        [sys.executable, "-m", "rulesengine", "simulate", str(OVERFLOWING), "-n", "3", "-s", "40", "-j", workers],
        capture_output=True,
        text=True,
        env=child_environment(),
        timeout=120,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{OVERFLOWING}:27:21: a number beyond" in result.stderr and "(in the match of seed 40)" in result.stderr


def test_no_leader_for_good_is_said_in_words_not_as_0_percent():
    result = CliRunner().invoke(main, ["simulate", str(DEAD), "-n", "3"])
    assert result.exit_code == 0, result.output
    assert "no match had a leader who stayed ahead to the end" in result.output and "after 0%" not in result.output


def test_check_makes_every_setting_before_playing_and_plays_each_once(tmp_path, monkeypatch):
    played = []
    real = Recording.play
    monkeypatch.setattr(Recording, "play", lambda self, index: played.append(index) or real(self, index))
    refused = CliRunner().invoke(main, ["check", "pan", "-p", "3", "-p", "9", "-n", "5"])
    assert refused.exit_code == 2 and "not 9" in refused.output and played == []
    again = CliRunner().invoke(main, ["check", str(DEAD), str(DEAD.parent / "." / DEAD.name), "-n", "2"])
    assert "1 setting(s)" in again.output and played == [0, 1]


def test_a_long_run_keeps_a_few_numbers_a_match_not_its_record():
    import tracemalloc

    from rulesengine.analysis import Tally

    game = rulesengine.make_game("padan")
    plan = make_plan(game, 1)
    record = Recording(game, plan).play(0)
    tally = Tally(game.program, plan)
    tally.add(record)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(2_000):
        tally.add(record)
    per_match = (tracemalloc.get_traced_memory()[0] - before) / 2_000
    tracemalloc.stop()
    # its decisions, rounds, lead changes, share led for good, and one number a round
    assert per_match <= 8 * (5 + len(record["round_lengths"])) * 1.2
    assert tally.result()["games"] == 2_001


def test_max_steps_stops_the_matches_of_simulate_and_check_sooner():
    simulated = CliRunner().invoke(main, ["simulate", "pan", "-n", "3", "--max-steps", "40", "--json"])
    assert simulated.exit_code == 0, simulated.output
    data = json.loads(simulated.output)
    assert data["truncated"] == 3 and data["length"]["decisions"]["max"] == 40
    checked = CliRunner().invoke(main, ["check", "pan", "-n", "2", "--max-steps", "40", "--format", "json"])
    assert checked.exit_code == 1
    assert "stopped at the engine's limit of 40 decisions" in checked.output
    refused = CliRunner().invoke(main, ["simulate", "pan", "-n", "1", "--max-steps", "0"])
    assert refused.exit_code == 2 and "--max-steps" in refused.output


@pytest.mark.parametrize(
    "arguments,wrong",
    [
        ({"games": 0}, "number of matches"),
        ({"games": -2}, "number of matches"),
        ({"games": 2.5}, "number of matches"),
        ({"games": 2, "seed": 2**63 - 1}, "seed"),  # the second match's seed would pass the range
        ({"games": 2, "seed": "7"}, "seed"),
        ({"games": 2, "workers": 1025}, "workers is a whole number from 1 to 1024"),  # as -j 1025 is refused
        ({"games": 2, "workers": 0}, "workers"),
        ({"games": 2, "workers": 1.5}, "workers"),
    ],
)
def test_analyse_refuses_what_no_command_could_replay(arguments, wrong):
    game = rulesengine.make_game("padan")
    with pytest.raises(rulesengine.EngineError, match=wrong):
        analyse(game, probe=False, **arguments)
    assert analyse(game, 1, seed=2**63 - 1, probe=False)["games"] == 1  # the last seed itself plays
