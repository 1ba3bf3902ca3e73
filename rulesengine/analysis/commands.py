"""The analysis commands of the `rulesengine` CLI: simulate, compare and check."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import IO, Any

import click

from .. import atomic
from ..agent_spec import AGENT_NAMES
from ..api import load_ruleset
from ..click_types import MAX_STEPS_OPTION, SEED, FiniteFloatRange, WholeNumber
from ..diagnostics import (
    ERROR,
    Diagnostic,
    EngineError,
    RuleFileError,
    RulesEngineError,
    render_github,
    render_json,
    render_text,
)
from ..engine import Game
from ..resources import same_file
from . import BackendError, Tally, make_plan, provenance, summarise
from .backends import MAX_WORKERS, decisions_played, resolve_workers, run
from .checks import DEFAULT_LIMIT_SHARE, findings, setting_text
from .compare import compare as compare_analyses
from .compare import render as render_comparison
from .compare import unfinished as unfinished_comparison
from .locate import error_place
from .probe import PROBE_MATCHES, options_without_effect
from .progress import progress_bar
from .settings import SettingError, check_backend, check_matches, plan_settings
from .text import render

INTERRUPTED = 130  # the exit status of a run stopped by Ctrl-C


def _cli():
    from .. import cli  # the shared helpers (loading, usage errors) live there

    return cli


_common = [
    click.option("-n", "--games", type=WholeNumber(min=1), required=True, help="How many matches to play."),
    click.option(
        "--players", "-p", type=WholeNumber(), default=None, help="Number of players (default: the ruleset's)."
    ),
    click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Match k uses seed SEED+k."),
    click.option(
        "-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="Set a ruleset option; repeat for more."
    ),
    MAX_STEPS_OPTION,
    click.option(
        "--workers",
        "-j",
        default="1",
        show_default=True,
        metavar="N|auto",
        help=f"Processes (or Ray tasks at once) to share the matches among, at most {MAX_WORKERS} and never more "
        "than the matches; auto: one per core.",
    ),
    click.option(
        "--backend",
        type=click.Choice(["local", "ray"]),
        default="local",
        show_default=True,
        help="Local processes, or Ray tasks (extra 'ray') on a local or existing cluster.",
    ),
    click.option(
        "--address",
        default=None,
        metavar="HOST:PORT",
        help="With --backend ray: the address of an existing Ray cluster (default: start one here).",
    ),
    click.option(
        "--agents",
        default="random",
        show_default=True,
        metavar="NAME[,NAME...]",
        help=f"Agent specs by seat, repeated if shorter; mixed agents rotate seats ({', '.join(AGENT_NAMES)}; "
        "e.g. ismcts:500,random — see docs/agents.md).",
    ),
    click.option(
        "--role",
        "roles",
        multiple=True,
        metavar="VARIABLE",
        help="A player variable naming a role (e.g. dealer) to report; default: every one.",
    ),
    click.option(
        "--standing",
        default=None,
        metavar="[-]VARIABLE",
        help="A per-player number that tells who leads ('-' before it: lower is better).",
    ),
    click.option("--json", "as_json", is_flag=True, help="Print the statistics as one JSON object."),
    click.option(
        "--report",
        "report_path",
        default=None,
        metavar="FILE.html",
        help="Write a self-contained HTML report with plots.",
    ),
]


def _with(options):
    def decorate(function):
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


def _settings(game: Game, workers: str, agents: str, roles: tuple[str, ...], standing: str | None) -> dict[str, Any]:
    cli = _cli()
    try:
        count = resolve_workers(workers)
    except ValueError as error:
        raise cli.UsageError(str(error)) from None
    try:  # the checks `analyse` makes, in the words of the options
        checked = plan_settings(game, agents.split(","), roles or None, standing, command_line=True)
    except SettingError as error:
        raise cli.ChoiceError(str(error)) from None
    return {"workers": count, **checked}


def _check_seeds(seed: int, games: int, played: int | None = None) -> None:
    """Refuse a --seed whose matches (match k uses seed SEED+k; `played` of them, if more
    than -n) would pass the largest seed: `run --seed` could not replay them."""
    try:
        check_matches(games, seed, played=played, command_line=True)
    except SettingError as error:
        raise _cli().ChoiceError(str(error)) from None


def _simulate(
    game: Game,
    games: int,
    seed: int,
    settings: dict[str, Any],
    backend: str,
    address: str | None,
    label: str,
    quiet: bool,
    probe: bool = True,
    matches_path: str | None = None,
) -> dict[str, Any]:
    try:
        check_backend(backend, address, command_line=True)
    except SettingError as error:
        raise _cli().UsageError(str(error)) from None
    plan = make_plan(game, games, seed, settings["agents"], settings["roles"], settings["standing"])
    writer = MatchWriter(matches_path) if matches_path is not None else None
    rules = provenance(game)
    tally = Tally(game.program, plan)

    decided = 0  # decisions of the matches handed over

    def take(record: dict[str, Any]) -> None:
        nonlocal decided
        tally.add(record)
        decided += record["decisions"]
        if writer is not None:
            writer.write(record)

    def decisions() -> int:  # and of the matches in progress
        return decisions_played(decided)

    try:
        with progress_bar(games, label, enabled=not quiet, decisions=decisions) as update:
            outcome = run(plan, None, settings["workers"], backend, address, update, take)
    except BackendError as error:
        if writer is not None:
            writer.close()  # nothing was played: an existing file stays as it was
        raise _cli().ChoiceError(str(error)) from None
    if writer is not None:
        writer.finish(outcome.interrupted)
    return summarise(game, plan, outcome, tally, probe=probe and not outcome.interrupted, rules=rules)


class MatchWriter:
    """Writes one JSON line per match as records are handed over (in match order), so the
    file holds the matches done even if the run is stopped.

    The file is opened when the first match is done, not before: a run that fails to start,
    or is stopped before a match is done, leaves an existing file as it was. A failed write
    is the one-line "cannot write".
    """

    KEYS = (
        "seed",
        "agents",
        "decisions",
        "rounds",
        "round_lengths",
        "round_ends",
        "match_end",
        "returns",
        "first_movers",
        "roles",
        "leaders",
    )

    def __init__(self, path: str):
        self.path = path
        self.handle: IO[str] | None = None

    def _open(self) -> IO[str]:
        """The file, opened (and emptied) at the first call: the one place it is opened."""
        if self.handle is None:
            self.handle = open(self.path, "w", encoding="utf-8")  # closed by finish() or close()
        return self.handle

    def write(self, record: dict[str, Any]) -> None:
        try:
            handle = self._open()
            handle.write(json.dumps({k: record[k] for k in self.KEYS}) + "\n")
            handle.flush()
        except OSError as error:
            self.close()
            raise _cannot_write(self.path, error) from None

    def finish(self, interrupted: bool) -> None:
        """Close the file. A run stopped before any match was done leaves an existing file as
        it was (it would otherwise lose the matches of an earlier run for nothing); a run that
        ended with no match done (it asked for none) leaves the file empty, as its record."""
        if self.handle is None and interrupted:
            return
        try:
            self._open().close()  # a full disk may show only here
        except OSError as error:
            self.close()
            raise _cannot_write(self.path, error) from None
        self.handle = None

    def close(self) -> None:
        """Close the file without writing more (after an error); never raises."""
        if self.handle is not None:
            try:
                self.handle.close()
            except OSError:
                pass  # the error that brought us here is the one to report
            self.handle = None


def _cannot_write(path: str, error: OSError) -> click.ClickException:
    return _cli().ChoiceError(f"cannot write {path}: {error.strerror or error}")


def _write_report(path: str, html: str) -> None:
    try:
        atomic.write_text(path, html)  # a failure half-way leaves no half report
    except OSError as error:
        raise _cannot_write(path, error) from None


def _check_outputs(games: tuple[Game, ...], **outputs: str | None) -> None:
    """Refuse, before a match is played, an output that is one of the rule files read (each
    game's file and every file it extends or includes), another output, a folder, a pipe or
    a device, or in a folder that is missing."""
    from ..api import composed_files
    from ..replay import ReplayError, check_destination

    cli = _cli()
    inputs = [file for game in games for file in composed_files(game.ruleset)]
    given = {option: path for option, path in outputs.items() if path is not None}
    for option, path in given.items():
        try:
            check_destination(path, inputs=inputs)
        except ReplayError as error:
            raise cli.ChoiceError(f"--{option}: {error}") from None
    paths = list(given.values())
    if len(paths) == 2 and same_file(Path(paths[0]), paths[1]):
        raise cli.UsageError(f"--matches and --report name the same file {paths[1]}")


def _failed_match(game: Game, message: str) -> Diagnostic:
    span, reason = error_place(message, game.ruleset.file)
    return Diagnostic(
        "RE406",
        f"a match stopped on an error of the rules ({setting_text(game)}): {reason}",
        span,
        ERROR,
        "`rulesengine run` with the match's seed plays it again, with its log",
    )


def _check_report(path: str | None) -> None:
    """Refuse a report that could not be written before playing, not after."""
    if path is not None and importlib.util.find_spec("matplotlib") is None:
        raise _cli().ChoiceError("--report needs matplotlib: pip install 'rulesengine[report]'")


def _report_html(kind: str, data: dict[str, Any]) -> str:
    try:
        from .report import comparison_report, report
    except ImportError as error:
        raise _cli().ChoiceError(
            f"--report needs matplotlib ({error.name} is missing): pip install 'rulesengine[report]'"
        ) from None
    return report(data) if kind == "simulate" else comparison_report(data)


@click.command(name="simulate")
@click.argument("ruleset")
@_with(_common)
@click.option(
    "--matches",
    "matches_path",
    default=None,
    metavar="FILE.jsonl",
    help="Write one JSON line per match (seed, length, rounds, end reasons, returns).",
)
def simulate_command(
    ruleset: str,
    games: int,
    players: int | None,
    seed: int,
    options: tuple[str, ...],
    max_steps: int,
    workers: str,
    backend: str,
    address: str | None,
    agents: str,
    roles: tuple[str, ...],
    standing: str | None,
    as_json: bool,
    report_path: str | None,
    matches_path: str | None,
) -> None:
    """Bots play GAMES matches of RULESET; prints balance statistics with 95 % intervals."""
    _check_seeds(seed, games)
    _check_report(report_path)
    game = _cli()._load_game(ruleset, players, options, max_steps)
    _check_outputs((game,), matches=matches_path, report=report_path)
    settings = _settings(game, workers, agents, roles, standing)
    data = _simulate(
        game, games, seed, settings, backend, address, game.ruleset.name, as_json, matches_path=matches_path
    )
    # the statistics first: a report that cannot be written at the end does not lose them
    click.echo(json.dumps(data, indent=2) if as_json else render(data))
    if report_path is not None:
        _write_report(report_path, _report_html("simulate", data))
    if data["partial"]:
        click.echo("interrupted: the statistics above are of the matches completed", err=True)
        if matches_path is not None and data["games"] == 0:
            click.echo(f"no match was done: {matches_path} was left as it was", err=True)
        raise SystemExit(INTERRUPTED)


@click.command(name="compare")
@click.argument("ruleset")
@click.argument("other", required=False)
@_with(_common)
@click.option(
    "-O",
    "--other-option",
    "other_options",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set an option of the second setting only; repeat for more.",
)
def compare_command(
    ruleset: str,
    other: str | None,
    games: int,
    players: int | None,
    seed: int,
    options: tuple[str, ...],
    max_steps: int,
    workers: str,
    backend: str,
    address: str | None,
    agents: str,
    roles: tuple[str, ...],
    standing: str | None,
    as_json: bool,
    report_path: str | None,
    other_options: tuple[str, ...],
) -> None:
    """Simulate two settings with the same seeds and show each statistic for both, the
    difference and whether it is significant: RULESET against OTHER (another rule file), or
    RULESET with -O options against RULESET without them."""
    cli = _cli()
    if other is None and not other_options:
        raise cli.UsageError("compare needs a second rule file or at least one -O NAME=VALUE")
    _check_seeds(seed, games)
    cli._parse_options(other_options, "-O")  # before they join -o's, so that an error names -O
    _check_report(report_path)
    first = cli._load_game(ruleset, players, options, max_steps)
    second = cli._load_game(other or ruleset, players, options + other_options, max_steps)
    _check_outputs((first, second), report=report_path)
    # both settings checked before either is played, so a mistake does not wait for A's matches
    settings = [_settings(game, workers, agents, roles, standing) for game in (first, second)]
    results = []
    for label, game, chosen in (("A", first, settings[0]), ("B", second, settings[1])):
        data = _simulate(game, games, seed, chosen, backend, address, f"{label}: {game.ruleset.name}", as_json)
        results.append(data)
        if data["partial"]:
            break
    if len(results) < 2:  # stopped while A was played: its statistics, and nothing compared
        comparison = unfinished_comparison(results[0])
        text = render(results[0])
    else:
        comparison = compare_analyses(results[0], results[1])
        text = render_comparison(comparison)
    click.echo(json.dumps(comparison, indent=2) if as_json else text)
    if report_path is not None:
        _write_report(report_path, _report_html("compare", comparison))
    if comparison["partial"]:
        if comparison["b"] is None:
            click.echo("interrupted before the second setting was simulated: the statistics are A's so far", err=True)
        else:
            click.echo("interrupted: the statistics above are of the matches completed", err=True)
        raise SystemExit(INTERRUPTED)


@click.command(name="check")
@click.argument("rulesets", nargs=-1, required=True)
@click.option(
    "-n",
    "--games",
    type=WholeNumber(min=1),
    default=100,
    show_default=True,
    help="Matches to play for each setting.",
)
@click.option(
    "--players",
    "-p",
    "player_counts",
    type=WholeNumber(),
    multiple=True,
    help="A number of players to check; repeat for more (default: the ruleset's).",
)
@click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Match k uses seed SEED+k.")
@click.option(
    "-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="Set a ruleset option; repeat for more."
)
@MAX_STEPS_OPTION
@click.option(
    "--limit-share",
    type=FiniteFloatRange(0, 1),
    default=None,
    help="Fail when more than this share of rounds ends at a declared turn limit "
    f"(default: the rule file's round.limit.accepted_share, else {DEFAULT_LIMIT_SHARE}).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="How to print the findings.",
)
@click.option("--strict", is_flag=True, help="Treat warnings as failures.")
@click.option(
    "--workers",
    "-j",
    default="1",
    show_default=True,
    metavar="N|auto",
    help=f"Processes to share the matches among, at most {MAX_WORKERS} and never more than the matches; "
    "auto: one per core.",
)
def check_command(
    rulesets: tuple[str, ...],
    games: int,
    player_counts: tuple[int, ...],
    seed: int,
    options: tuple[str, ...],
    max_steps: int,
    limit_share: float | None,
    output_format: str,
    strict: bool,
    workers: str,
) -> None:
    """Play GAMES matches of each setting of RULESETS and fail (exit 1) when a match hits the
    engine's limit, rounds hit a declared turn limit too often, a move is never legal or a
    trigger never fires. Findings point at the rule's file:line:col."""
    cli = _cli()
    _check_seeds(seed, games, PROBE_MATCHES)  # the options are probed with matches of seeds SEED.. too
    problems = []
    # Every setting is made before any is played, so that a mistake in the last one does not
    # wait for the matches of the others; each once, however often it is named.
    checked: dict[tuple[Path, int], Game] = {}
    for ruleset in rulesets:
        try:
            load_ruleset(ruleset)
        except RuleFileError as error:  # reported in the chosen format with the findings
            problems.extend(error.diagnostics)
            continue
        except RulesEngineError:
            pass  # an unknown ruleset: a usage error, said when the game is made below
        for count in player_counts or (None,):
            game = cli._load_game(ruleset, count, options, max_steps)
            checked.setdefault((Path(game.ruleset.file).resolve(), game.num_players), game)
    for game in checked.values():
        settings = _settings(game, workers, "random", (), None)
        try:
            data = _simulate(
                game, games, seed, settings, "local", None, game.ruleset.name, output_format != "text", probe=False
            )
        except EngineError as error:  # a finding like the others, in the chosen format
            problems.append(_failed_match(game, str(error)))
            continue
        if data["partial"]:
            click.echo("interrupted: not every setting was checked", err=True)
            raise SystemExit(INTERRUPTED)
        problems.extend(findings(game, data, limit_share, options_without_effect(game, seed)))
    settings_checked = len(checked)
    failed = any(p.severity == ERROR or strict for p in problems)
    if output_format == "json":
        click.echo(render_json(problems))
    elif output_format == "github":
        if problems:
            click.echo(render_github(problems))
    else:
        if problems:
            click.echo(render_text(problems, {}, colour=sys.stdout.isatty()))
        errors = sum(p.severity == ERROR for p in problems)
        verdict = "failed" if failed else "passed"
        click.echo(
            f"{settings_checked} setting(s), {games} matches each: {errors} error(s), "
            f"{len(problems) - errors} warning(s); {verdict}"
        )
    raise SystemExit(1 if failed else 0)
