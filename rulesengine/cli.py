"""The `rulesengine` command: validate rule files, run and simulate matches, and help
authors (schema, describe, new).

Exit codes: 0 success, 1 invalid rule files (or a failed match), 2 usage errors.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from . import agent_spec, api, authoring, ir, replay
from .describe import describe as describe_ruleset
from .diagnostics import (
    ERROR,
    Diagnostic,
    RuleFileError,
    RulesEngineError,
    render_github,
    render_json,
    render_text,
)
from .engine import Game
from .play import play_against_bots
from .simulate import simulate


class UsageError(click.UsageError):
    exit_code = 2


class ChoiceError(click.ClickException):
    """A one-line error for an unknown ruleset, option or value."""

    exit_code = 2


def _collect_files(paths: tuple[str, ...]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"no such file or folder: {raw}")
    return files


def _parse_options(pairs: tuple[str, ...]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"-o takes NAME=VALUE, not '{pair}'")
        options[name.strip()] = value
    return options


def _load_ruleset(ruleset: str) -> ir.Ruleset:
    """A checked ruleset; an invalid file exits 1 with its problems, an unknown name 2."""
    try:
        return api.load_ruleset(ruleset)
    except RuleFileError as error:
        click.echo(render_text(error.diagnostics, {}, colour=sys.stderr.isatty()), err=True)
        raise SystemExit(1) from None
    except RulesEngineError as error:
        raise ChoiceError(str(error)) from None


def _load_game(ruleset: str, players: int | None, options: tuple[str, ...]) -> Game:
    checked = _load_ruleset(ruleset)
    try:
        return api.make_game(checked, players=players, options=_parse_options(options))
    except RulesEngineError as error:
        raise ChoiceError(str(error)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulesengine")
def main() -> None:
    """Check, run and simulate card games written as rule files."""


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="How to print the problems.",
)
@click.option("--strict", is_flag=True, help="Treat warnings as failures.")
def validate(paths: tuple[str, ...], output_format: str, strict: bool) -> None:
    """Check rule files (or every .yaml file in folders) and report every problem."""
    files = _collect_files(paths)
    if not files:
        raise UsageError("no rule files found (looked for .yaml and .yml files)")
    problems: list[Diagnostic] = []
    sources: dict[str, str] = {}
    for file in files:
        _, found = api.validate_file(file)
        problems.extend(found)
    failed = any(p.severity == ERROR or strict for p in problems)
    if output_format == "json":
        click.echo(render_json(problems))
    elif output_format == "github":
        if problems:
            click.echo(render_github(problems))
    else:
        if problems:
            click.echo(render_text(problems, sources, colour=sys.stdout.isatty()))
        errors = sum(p.severity == ERROR for p in problems)
        warnings = len(problems) - errors
        verdict = "invalid" if failed else "valid"
        click.echo(f"{len(files)} file(s) checked: {errors} error(s), {warnings} warning(s); {verdict}")
    raise SystemExit(1 if failed else 0)


_players = click.option("--players", "-p", type=int, default=None, help="Number of players (default: the ruleset's).")
_seed = click.option("--seed", "-s", type=int, default=0, show_default=True, help="Seed of shuffles and bots.")
_options = click.option(
    "-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="Set a ruleset option; repeat for more."
)


@main.command()
@click.argument("ruleset")
@_players
@_seed
@_options
@click.option("--record", "record_path", type=click.Path(dir_okay=False), default=None,
              help="Write a replay of the match to this JSON file.")
@click.option("--agents", "agents_spec", default="random", show_default=True, metavar="SPECS",
              help="Bots per seat, e.g. ismcts:1000,greedy (see docs/agents.md).")
def run(ruleset: str, players: int | None, seed: int, options: tuple[str, ...], record_path: str | None,
        agents_spec: str) -> None:
    """Bots (random unless --agents says) play one whole match of RULESET (a path or a shipped name)."""
    game = _load_game(ruleset, players, options)
    state = game.new_initial_state(seed=seed, record_log=True)
    agents = _make_agents(agents_spec, game.num_players, seed)
    _print_header(game, seed)
    shown = 0
    while not state.is_terminal():
        shown = _flush(state, shown)
        state.apply_action(agents[state.current_player()].choose(state))
    _flush(state, shown)
    _print_result(state)
    if record_path is not None:
        replay.write(record_path, replay.record(state, ruleset))
        click.echo(f"replay written to {record_path}")


@main.command(name="replay")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--verify", is_flag=True, help="Only check that the match replays as recorded (exit 0 or 1).")
def replay_command(path: str, verify: bool) -> None:
    """Play back a replay written by `run --record`, or verify it."""
    try:
        data = replay.read(path)
        if verify:
            state = replay.verify(data, path)
            click.echo(f"{path}: verified, {len(data['actions'])} actions, returns {state.returns()}")
            return
        game = _load_game(data["ruleset"], data["players"], tuple(f"{k}={v}" for k, v in data["options"].items()))
        _print_header(game, data["seed"])
        state = replay.play_back(data, path)
    except replay.ReplayError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(1) from None
    _flush(state, 0)
    _print_result(state)


def _make_agents(spec: str, seats: int, seed: int) -> list:
    try:
        return agent_spec.make_agents(spec, seats, seed)
    except agent_spec.AgentSpecError as error:
        raise ChoiceError(str(error)) from None


def _print_header(game: Game, seed: int) -> None:
    settings = ", ".join(f"{k}={v}" for k, v in game.options.items())
    click.echo(f"{game.ruleset.name}: {game.num_players} players, seed {seed}" + (f", {settings}" if settings else ""))


def _flush(state, shown: int) -> int:
    """Print the log lines not printed yet; returns how many are printed now."""
    for line in state.log[shown:]:
        click.echo(line)
    return len(state.log)


def _print_result(state) -> None:
    returns = state.returns()
    click.echo(f"match over after {state.round_number} round(s) and {state.steps} decisions")
    if not state.is_terminal():
        click.echo("result: the match is not over")
    elif state.truncated:
        click.echo("result: stopped at the engine's decision limit, a draw")
    elif all(r == 0 for r in returns):
        click.echo("result: a draw")
    else:
        winners = [f"P{p + 1}" for p, r in enumerate(returns) if r > 0]
        losers = [f"P{p + 1}" for p, r in enumerate(returns) if r < 0]
        click.echo(f"result: {', '.join(winners) or 'nobody'} won; {', '.join(losers) or 'nobody'} lost")


@main.command()
@click.argument("ruleset")
@_players
@_seed
@_options
@click.option("--seat", type=click.IntRange(min=1), default=1, show_default=True, help="Your seat (P1 is seat 1).")
@click.option("--opponents", default="random", show_default=True, metavar="SPECS",
              help="The bots in the other seats, in seat order, e.g. ismcts:1000,greedy (see docs/agents.md).")
def play(ruleset: str, players: int | None, seed: int, options: tuple[str, ...], seat: int, opponents: str) -> None:
    """Play a match of RULESET in the terminal against bots (random unless --opponents says)."""
    game = _load_game(ruleset, players, options)
    if seat > game.num_players:
        raise ChoiceError(f"--seat {seat} is not a seat of a {game.num_players}-player game")
    bots = _make_agents(opponents, game.num_players - 1, seed)
    bots.insert(seat - 1, None)  # the person's seat
    _print_header(game, seed)
    click.echo(f"you are P{seat}; type the number of your move (q to quit)")

    def ask(state, lines: list[str]) -> int:
        click.echo("\n".join(lines))
        actions = state.legal_actions()
        for number, action in enumerate(actions, start=1):
            click.echo(f"  {number:>3}. {state.action_to_string(action)}")
        while True:
            answer = click.prompt("your move", default="1" if len(actions) == 1 else None, show_default=False)
            if answer.strip().lower() in ("q", "quit"):
                raise click.exceptions.Abort()
            if answer.strip().isdigit() and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            click.echo(f"type a number from 1 to {len(actions)}")

    state = play_against_bots(game, seat - 1, seed, ask, click.echo, bots)
    _print_result(state)


@main.command(name="simulate")
@click.argument("ruleset")
@click.option("-n", "--games", type=click.IntRange(min=1), required=True, help="How many matches to play.")
@_players
@_seed
@_options
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as one JSON object.")
@click.option("--workers", "-j", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes to share the matches among (the statistics do not change).")
@click.option("--agents", "agents_spec", default=None, metavar="SPECS",
              help="Bots per seat, e.g. ismcts:500,random (default: random; see docs/agents.md).")
def simulate_command(
    ruleset: str, games: int, players: int | None, seed: int, options: tuple[str, ...], as_json: bool, workers: int,
    agents_spec: str | None,
) -> None:
    """Bots (random unless --agents says) play GAMES matches; prints wins, losses and draws per seat."""
    game = _load_game(ruleset, players, options)
    if agents_spec is not None:
        _make_agents(agents_spec, game.num_players, seed)  # a bad spec is a usage error before any match
    summary = simulate(game, games, seed=seed, workers=workers, agents=agents_spec)
    data = summary.as_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"{summary.ruleset}: {games} matches, {summary.players} players, seeds {seed}..{seed + games - 1}")
    click.echo(f"{'seat':>6} {'wins':>7} {'losses':>7} {'draws':>7} {'win rate':>9}")
    for seat in data["seats"]:
        click.echo(
            f"{seat['seat']:>6} {seat['wins']:>7} {seat['losses']:>7} {seat['draws']:>7} {seat['win_rate']:>9.1%}"
        )
    click.echo(f"mean decisions per match: {summary.mean_decisions:.1f}")
    click.echo(f"decisions per second: {summary.decisions_per_second:,.0f}")
    if summary.truncated:
        click.echo(f"matches stopped at the engine's decision limit: {summary.truncated}")


@main.command()
def schema() -> None:
    """Print the JSON Schema (draft-07) of rule files, for editors and other checkers.

    Save it once, e.g. `rulesengine schema > rule-file.schema.json`, and point your
    editor at it (see docs/tooling.md).
    """
    click.echo(authoring.schema_text(), nl=False)


@main.command(name="describe")
@click.argument("ruleset")
def describe_command(ruleset: str) -> None:
    """Summarise RULESET (a path or a shipped name): players, options, decks, zones, phases, moves."""
    click.echo(describe_ruleset(_load_ruleset(ruleset)))


def _reference(base: str, folder: Path) -> str:
    """How the new file names its base: a shipped name as it is, a file by a path relative to it."""
    if not Path(base).is_file():
        return base
    try:
        return Path(os.path.relpath(Path(base).resolve(), folder.resolve())).as_posix()
    except ValueError:  # another drive: only an absolute path reaches it
        return Path(base).resolve().as_posix()


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--extends",
    "base",
    metavar="RULESET",
    help="Write a variant of RULESET (a shipped name or a path) listing its options instead.",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it already exists.")
def new(file: Path, base: str | None, force: bool) -> None:
    """Write a new rule file: a small complete game to start from, or a variant of RULESET."""
    exists = ChoiceError(f"{file} already exists; choose another name, or add --force to overwrite it")
    if file.exists() and not force:
        raise exists
    header = authoring.schema_comment(file.parent.resolve())
    if base is None:
        text = header + authoring.starter_game(file.name)
    else:
        text = header + authoring.variant(_load_ruleset(base), _reference(base, file.parent), file.name)
    try:
        authoring.write_new(file, text, force=force)
    except OSError as error:
        if isinstance(error, FileExistsError) and file.exists():  # made meanwhile by someone else
            raise exists from None
        raise ChoiceError(f"cannot write {file}: {error.strerror or error}") from None
    click.echo(f"wrote {file}; check it with: rulesengine validate {file}")


def entry() -> None:
    """Console entry point: usage errors exit with 2, never with a traceback."""
    try:
        main.main(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        raise SystemExit(130) from None
    except click.ClickException as error:
        error.show()
        raise SystemExit(2) from None
    except RulesEngineError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(1) from None
    except SystemExit:
        raise
    except BrokenPipeError:
        raise SystemExit(1) from None


if __name__ == "__main__":
    entry()
