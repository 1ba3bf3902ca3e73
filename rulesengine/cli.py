"""The `rulesengine` command: validate rule files, run and simulate matches, and help
authors (schema, describe, new).

Exit codes, the same for every command: 0 done; 1 invalid input (a rule file or replay
with problems) or a failed check; 2 usage (an unknown command, option, ruleset name or
option value, a file that cannot be written); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from . import api, fileformat, given_files, ir
from .click_types import BROWSER_SEED, MAX_STEPS_OPTION, SEED, FiniteFloatRange, WholeNumber
from .diagnostics import (
    ERROR,
    Diagnostic,
    OptionError,
    RuleFileError,
    RulesEngineError,
    printable,
    render_github,
    render_json,
    render_text,
)
from .limits import DEFAULT_MAX_STEPS, FRESH_SEEDS
from .quick_exit import quick_exit
from .resources import same_file

if TYPE_CHECKING:
    from .engine import Game

# Each command imports what only it uses (the engine, the agents, the analysis): checking a
# rule file, the most frequent command in CI and editors, loads the checker alone.


class UsageError(click.UsageError):
    exit_code = 2


class ChoiceError(click.ClickException):
    """A one-line error for an unknown ruleset, option or value."""

    exit_code = 2


def _say(*lines: str) -> None:
    """Print lines made from a rule file's names, each with its control characters escaped (a
    line break among them): a name can neither send commands to the terminal nor pass for a
    line of its own, a move or a log line."""
    for line in lines:
        click.echo(printable(line))


def _colour(stream) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


def _is_rule_file_name(path: Path) -> bool:
    if path.suffix not in (".yaml", ".yml"):
        return False
    return given_files.to_read(path)


def _collect_files(paths: tuple[str, ...]) -> tuple[given_files.Gathered, list[str]]:
    """The files to validate and a diagnostic for each refused one (`given_files` says which),
    and a usage error for each path that names nothing: the other paths are still checked."""
    gathered = given_files.Gathered()
    unusable: list[str] = []
    for raw in paths:
        if not raw:  # "" would be the working folder, as "." is
            unusable.append("a path to check cannot be empty; to check the working folder, give '.'")
            continue
        path = Path(raw)
        try:
            is_dir, there = given_files.look_up(raw)
        except given_files.CannotLookUp as error:  # as a missing path
            unusable.append(str(error))
            continue
        if is_dir:
            # hidden folders (.git, .venv, a tool's cache) hold no rule files of this repository,
            # as `test` skips them; one named on the command line is walked
            gathered.take_folder(path, _is_rule_file_name, hidden=False)
        elif there:
            gathered.take(path, path.parent)  # not a regular file: validate says so (RE009)
        else:
            try:
                shipped = api.find_ruleset(raw)  # a shipped name, as every other command takes
            except RulesEngineError:
                unusable.append(f"no such file or folder, nor a shipped ruleset: {printable(raw)}")
            else:
                gathered.take_shipped(shipped)
    return gathered, unusable


def _parse_options(pairs: tuple[str, ...], option: str = "-o") -> dict[str, str]:
    """The NAME=VALUE pairs given with `option`, by name; a usage error names the option typed."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{option} takes NAME=VALUE, not '{pair}'")
        name, value = name.strip(), value.strip()  # as the name: "word = X" means X, not " X"
        if name in options and options[name] != value:  # which one was meant cannot be guessed
            raise UsageError(f"{option} {name} is given twice, as {options[name]} and as {value}: give it once")
        options[name] = value
    return options


def _load_ruleset(ruleset: str) -> ir.Ruleset:
    """A checked ruleset; an invalid file exits 1 with its problems, an unknown name 2."""
    try:
        return api.load_ruleset(ruleset)
    except RuleFileError as error:
        click.echo(render_text(error.diagnostics, {}, colour=_colour(sys.stderr)), err=True)
        raise SystemExit(1) from None
    except RulesEngineError as error:
        raise ChoiceError(str(error)) from None


def _load_game(ruleset: str, players: int | None, options: tuple[str, ...], max_steps: int = DEFAULT_MAX_STEPS) -> Game:
    checked = _load_ruleset(ruleset)
    players = _player_count(checked, players)
    try:
        return api.make_game(checked, players=players, options=_parse_options(options), max_steps=max_steps)
    except OptionError as error:
        raise ChoiceError(str(error)) from None
    except RulesEngineError as error:  # an error of the rules in this setting, e.g. a folded value too large
        click.echo(f"error: {printable(str(error))}", err=True)
        raise SystemExit(1) from None


def _player_count(checked: ir.Ruleset, players: int | None) -> int:
    """The players of a match of `checked` (its default for None); a usage error names --players."""
    try:
        return api.player_count(checked, players)
    except OptionError as error:
        raise ChoiceError(f"--players: {error}") from None


class _Commands(click.Group):
    """The commands, some defined in other modules and imported only when they are used."""

    elsewhere = {  # name -> (module, attribute)
        "simulate": ("rulesengine.analysis.commands", "simulate_command"),
        "compare": ("rulesengine.analysis.commands", "compare_command"),
        "check": ("rulesengine.analysis.commands", "check_command"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.elsewhere])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.elsewhere and cmd_name not in self.commands:
            module, attribute = self.elsewhere[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    # Every usage error passes through one of these two (click parses the command's own
    # arguments inside `invoke`): its message is made printable there, whoever wrote it.
    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _printable_usage_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _printable_usage_errors():
            return super().invoke(ctx)


@contextlib.contextmanager
def _printable_usage_errors() -> Iterator[None]:
    """A usage error's message with its control characters escaped, line by line: it often
    quotes what was typed (an agent, an option's value, a command's name), and a character
    such as ESC would reach the terminal."""
    try:
        yield
    except click.ClickException as error:
        # click types it Final, but reads it only when the error is shown
        error.message = "\n".join(printable(line) for line in error.message.split("\n"))  # type: ignore[misc]
        raise


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulesengine")
def main() -> None:
    """Check, run and simulate card games written as rule files."""


def _format_asked(args: list[str]) -> str | None:
    """The `--format` a command line asks for (the last one given), read before click has
    parsed it: when parsing fails, the output must still be in that format."""
    asked = None
    tokens = iter(args)
    for token in tokens:
        if token == "--":  # paths from here on
            break
        if token == "--format":
            asked = next(tokens, None)
        elif token.startswith("--format="):
            asked = token.partition("=")[2]
    return asked


class _OneDocumentCommand(click.Command):
    """A command whose machine-readable formats print one document even when click refuses the
    command line (no path, an unknown option): the report of a run that read nothing, from
    `empty_document(args)`, read before parsing consumes the arguments; the usage error is on
    standard error as always."""

    def __init__(self, *args: Any, empty_document: Callable[[list[str]], str | None], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.empty_document = empty_document

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        empty = self.empty_document(args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError:
            if empty is not None:
                click.echo(empty)
            raise


def _nothing_validated(args: list[str]) -> str | None:
    return render_json([]) if _format_asked(args) == "json" else None


def _nothing_tested(args: list[str]) -> str | None:
    from . import scenario_report

    trace = "--trace" in args[: _paths_from(args)]
    return scenario_report.empty_report(_format_asked(args) or "text", trace)


@main.command(cls=_OneDocumentCommand, empty_document=_nothing_validated)
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
@click.option(
    "--skip-non-rule-files",
    is_flag=True,
    help="Skip YAML files that are not rule files even when one file is named alone (as hooks do).",
)
def validate(paths: tuple[str, ...], output_format: str, strict: bool, skip_non_rule_files: bool) -> None:
    """Check rule files (or every .yaml file in folders) and report every problem.

    Given folders or several files, YAML files that are not rule files (no 'rulesengine:'
    line and no rule-file sections) are skipped with a note.
    """
    gathered, unusable = _collect_files(paths)
    files, refused = gathered.files, gathered.refused
    if not files and not refused and not unusable:
        unusable.append("no rule files found (looked for .yaml and .yml files)")
    # (only with files: a single path that named nothing cannot be asked whether it is a folder)
    skipping = bool(files) and fileformat.lenient(paths, skip_non_rule_files)
    chosen = 0
    checked: list[Diagnostic] = []
    for file in files:
        taken, note = fileformat.choose(file, skipping)
        if note is not None:
            click.echo(note, err=True)
        if taken:
            chosen += 1
            checked.extend(api.validate_file(file)[1])
    # a base checked alone and again through its variant: each problem once
    problems = [*refused, *given_files.once_each(checked)]
    failed = any(p.severity == ERROR or strict for p in problems)
    if output_format == "json":
        click.echo(render_json(problems))  # the files checked, when a path named nothing as well
    elif output_format == "github":
        if problems:
            click.echo(render_github(problems))
    elif files or problems:  # text: the usage error alone when nothing was checked
        if problems:
            click.echo(render_text(problems, {}, colour=_colour(sys.stdout)))  # lines read from the files
        errors = sum(p.severity == ERROR for p in problems)
        warnings = len(problems) - errors
        verdict = "invalid" if failed else "incomplete: a path given was not checked" if unusable else "valid"
        counted = chosen + gathered.files_refused  # a file refused unread is a file checked; a folder is not
        click.echo(f"{counted} file(s) checked: {errors} error(s), {warnings} warning(s); {verdict}")
    if unusable:
        raise UsageError("\n".join(unusable))
    raise SystemExit(1 if failed else 0)


_players = click.option(
    "--players", "-p", type=WholeNumber(), default=None, help="Number of players (default: the ruleset's)."
)
_seed = click.option("--seed", "-s", type=SEED, default=0, show_default=True, help="Seed of shuffles and bots.")
_options = click.option(
    "-o", "--option", "options", multiple=True, metavar="NAME=VALUE", help="Set a ruleset option; repeat for more."
)
_opponents = click.option(
    "--opponents",
    default="random",
    show_default=True,
    metavar="SPECS",
    help="The bots in the other seats, in seat order, e.g. ismcts:1000,greedy (see docs/agents.md).",
)


@main.command()
@click.argument("ruleset")
@_players
@_seed
@_options
@click.option(
    "--record",
    "record_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write a replay of the match to this JSON file.",
)
@click.option(
    "--agents",
    "agents_spec",
    default="random",
    show_default=True,
    metavar="SPECS",
    help="Bots per seat, e.g. ismcts:1000,greedy (see docs/agents.md).",
)
@MAX_STEPS_OPTION
def run(
    ruleset: str,
    players: int | None,
    seed: int,
    options: tuple[str, ...],
    record_path: str | None,
    agents_spec: str,
    max_steps: int,
) -> None:
    """Bots (random unless --agents says) play one whole match of RULESET (a path or a shipped name)."""
    from . import replay

    game = _load_game(ruleset, players, options, max_steps)
    if record_path is not None:  # before the match, not after it
        try:
            replay.check_destination(record_path, inputs=[ruleset, *api.composed_files(game.ruleset)])
            replay.reference(ruleset, record_path)
        except replay.ReplayError as error:
            raise ChoiceError(f"--record: {error}") from None
    state = game.new_initial_state(seed=seed, record_log=True)
    agents = _make_agents(agents_spec, game.num_players, seed)
    _print_header(game, seed)
    while not state.is_terminal():
        _flush(state)
        state.apply_action(agents[state.current_player()].choose(state))
    _flush(state)
    _print_result(state)
    if record_path is not None:
        try:
            replay.write(record_path, replay.record(state, ruleset, record_path))
        except replay.ReplayError as error:
            raise ChoiceError(f"--record: {error}") from None
        click.echo(f"replay written to {record_path}")


@main.command(name="replay")
@click.argument("path")
@click.option("--verify", is_flag=True, help="Only check that the match replays as recorded (exit 0 or 1).")
def replay_command(path: str, verify: bool) -> None:
    """Play back a replay written by `run --record`, or verify it.

    Both exit 1, with the same message, for a replay that cannot be read, names a ruleset
    that is missing, changed or outside its folder, or does not end as it recorded.
    """
    from . import replay

    try:
        data = replay.read(path)
        if verify:
            state = replay.verify(data, path)
            click.echo(f"{path}: verified, {len(data['actions'])} actions, returns {state.returns()}")
            return
        _print_header(replay.load_game(data, path), data["seed"])
        state = replay.play_back(data, path)
        _flush(state)
        _print_result(state)
        replay.check_result(data, state, path)
    except replay.ReplayError as error:
        click.echo(f"error: {printable(str(error))}", err=True)
        raise SystemExit(1) from None
    except RuleFileError as error:
        click.echo(render_text(error.diagnostics, {}, colour=_colour(sys.stderr)), err=True)
        raise SystemExit(1) from None


def _make_agents(spec: str, seats: int, seed: int) -> list:
    from . import agent_spec

    try:
        return agent_spec.make_agents(spec, seats, seed)
    except agent_spec.AgentSpecError as error:
        raise ChoiceError(str(error)) from None


def _fresh_seed() -> int:
    """A seed nobody can guess, for a match people play: a known one would tell them the deal."""
    import secrets

    return secrets.randbelow(FRESH_SEEDS)


def _print_header(game: Game, seed: int) -> None:
    settings = ", ".join(f"{k}={v}" for k, v in game.options.items())
    _say(f"{game.ruleset.name}: {game.num_players} players, seed {seed}" + (f", {settings}" if settings else ""))


def _flush(state) -> None:
    """Print the log's lines and let them go: a long match keeps no log in memory."""
    for line in state.log:
        _say(line)
    state.log.clear()


def _print_result(state) -> None:
    returns = state.returns()
    played = f"{state.round_number} round(s) and {state.steps} decisions"
    if not state.is_terminal():  # a replay recorded before the end
        click.echo(f"match not over after {played}")
        click.echo("result: the match is not over")
        return
    click.echo(f"match over after {played}")
    if state.truncated:
        click.echo("result: stopped at the engine's decision limit, a draw")
    elif state.program.results is not None and state.program.results.returns is not None:
        shown = ", ".join(f"P{p + 1} {r:+g}" for p, r in enumerate(returns))
        click.echo(f"result: returns {shown}")
    elif all(r == 0 for r in returns):
        click.echo("result: a draw")
    elif all(r > 0 for r in returns):
        click.echo("result: a shared win")
    else:
        winners = [f"P{p + 1}" for p, r in enumerate(returns) if r > 0]
        losers = [f"P{p + 1}" for p, r in enumerate(returns) if r < 0]
        click.echo(f"result: {', '.join(winners) or 'nobody'} won; {', '.join(losers) or 'nobody'} lost")


@main.command()
@click.argument("ruleset")
@_players
@click.option(
    "--seed",
    "-s",
    type=SEED,
    default=None,
    help="Seed of shuffles and bots [default: a fresh one; the header shows it, to play the deal again].",
)
@_options
@click.option("--seat", type=WholeNumber(min=1), default=1, show_default=True, help="Your seat (P1 is seat 1).")
@_opponents
def play(
    ruleset: str, players: int | None, seed: int | None, options: tuple[str, ...], seat: int, opponents: str
) -> None:
    """Play a match of RULESET in the terminal against bots (random unless --opponents says)."""
    from . import agent_spec
    from .play import play_against_bots

    seed = _fresh_seed() if seed is None else seed  # a fixed default would deal every match alike
    game = _load_game(ruleset, players, options)
    if seat > game.num_players:
        raise ChoiceError(f"--seat {seat} is not a seat of a {game.num_players}-player game")
    try:
        bots = agent_spec.make_opponents(opponents, game.num_players, seat - 1, seed)
    except agent_spec.AgentSpecError as error:
        raise ChoiceError(str(error)) from None
    _print_header(game, seed)
    click.echo(f"you are P{seat}; type the number of your move (q to quit)")

    def ask(state, lines: list[str]) -> tuple[int, ...]:
        _say(*lines)
        # whole actions, also where the engine takes a set of cards in steps
        choices = state.complete_actions()
        actions = [steps for _move, _values, _name, steps in choices]
        for number, (_move, _values, name, _steps) in enumerate(choices, start=1):
            _say(f"  {number:>3}. {name}")
        while True:
            typed = _read_answer("your move: ")
            if typed is None:
                click.echo(f"that line is longer than {MAX_ANSWER} characters")
                typed = "?"
            answer = typed.strip() if typed else "1" if len(actions) == 1 else ""  # Enter takes a forced move
            if answer.lower() in ("q", "quit"):
                raise _Quit("you left the match")
            # ASCII digits only ('²' and '٣' are digits to str.isdigit), and few of them
            if answer.isascii() and answer.isdigit() and len(answer) <= 9 and 1 <= int(answer) <= len(actions):
                return actions[int(answer) - 1]
            click.echo(f"type a number from 1 to {len(actions)}, or q to quit")

    try:
        state = play_against_bots(game, seat - 1, seed, ask, _say, bots)
    except _Quit as left:
        click.echo(str(left))
        return
    _print_result(state)


class _Quit(Exception):
    """The person typed q, or the input ended: the match ends there, and that is a normal end (exit 0)."""


MAX_ANSWER = 256  # characters of one typed answer; a move's number needs a few
_MAX_DISCARDED = 1 << 20  # of a longer line, what is read and dropped before the match ends


def _read_answer(prompt: str) -> str | None:
    """One line typed after `prompt`, without its line break; None when it is longer than
    MAX_ANSWER (the rest of it is read and dropped). The line is read in bounded pieces, so
    input without line breaks (a file, `/dev/zero`) cannot fill memory: past _MAX_DISCARDED
    characters, or at the end of the input, the person leaves the match (_Quit)."""
    click.echo(prompt, nl=False)
    line = sys.stdin.readline(MAX_ANSWER + 1)  # not click.prompt: it takes the end of input for Ctrl-C
    if not line:
        raise _Quit("the input ended: you left the match")
    if len(line) <= MAX_ANSWER or line.endswith("\n"):
        return line.removesuffix("\n")
    dropped = len(line)
    while not line.endswith("\n"):
        line = sys.stdin.readline(MAX_ANSWER)
        dropped += len(line)
        if not line:
            raise _Quit("the input ended: you left the match")
        if dropped > _MAX_DISCARDED:
            raise _Quit("the input sent no line break in over a million characters: you left the match")
    return None


def _seat_list(text: str, seats: int) -> list[int]:
    """Seats typed as 1,3 (P1 is seat 1) as 0-based seats; ChoiceError names what is wrong."""
    parts = [part.strip() for part in text.split(",")]
    if not all(part.isascii() and part.isdigit() and len(part) <= 3 for part in parts):
        raise ChoiceError(f"--seats takes seat numbers like 1,2, not '{printable(text)}'")
    chosen = sorted({int(part) for part in parts})
    if chosen[0] < 1 or chosen[-1] > seats:
        raise ChoiceError(f"--seats: a {seats}-player game has seats 1 to {seats}, not {printable(text)}")
    return [seat - 1 for seat in chosen]


@main.command()
@click.argument("ruleset")
@_players
@click.option(
    "--seed",
    "-s",
    type=BROWSER_SEED,
    default=None,
    help="Seed of the first match [default: a fresh one].",
)
@_options
@click.option(
    "--port", type=WholeNumber(0, 65535), default=8765, show_default=True, help="Port to serve on (0: any free one)."
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; 0.0.0.0 opens the server to your local network.",
)
@click.option(
    "--seats",
    default="1",
    show_default=True,
    metavar="LIST",
    help="The seats people play, e.g. 1,2: a link each (or one link with --hot-seat); bots play the rest.",
)
@click.option("--hot-seat", is_flag=True, help="One link, one screen: the people's seats take turns at it.")
@_opponents
@click.option(
    "--bot-delay",
    type=FiniteFloatRange(0, 10),
    default=0.6,
    show_default=True,
    help="Seconds between bot moves, so people can follow them.",
)
@click.option(
    "--record",
    "record_folder",
    type=click.Path(file_okay=False),
    default=None,
    help="Write the replay of each finished match into this folder.",
)
def serve(
    ruleset: str,
    players: int | None,
    seed: int | None,
    options: tuple[str, ...],
    port: int,
    host: str,
    seats: str,
    hot_seat: bool,
    opponents: str,
    bot_delay: float,
    record_folder: str | None,
) -> None:
    """Play RULESET in the browser: a local web server with a link per person's seat.

    One person plays against bots by default (with undo); --seats 1,2 gives each person a
    link to open in their own browser, --hot-seat one shared screen. The server listens on
    this computer only unless --host says otherwise. See docs/playtest.md.
    """
    try:
        from .web import server
        from .web.session import Session
    except ImportError:
        raise ChoiceError('serve needs the web extra: pip install "rulesengine[web]"') from None
    from . import agent_spec, replay

    game = _load_game(ruleset, players, options)
    people = _seat_list(seats, game.num_players)
    given = click.get_current_context().get_parameter_source("opponents") is not ParameterSource.DEFAULT
    if given and len(set(people)) == game.num_players:
        raise ChoiceError("--opponents: people play every seat, so there is no bot to set")
    if record_folder is not None:  # before serving, not when the first match ends
        try:
            replay.check_destination(
                Path(record_folder) / "replay.json", inputs=[ruleset, *api.composed_files(game.ruleset)]
            )
            replay.reference(ruleset, Path(record_folder) / "replay.json")
        except replay.ReplayError as error:
            raise ChoiceError(f"--record: {error}") from None
    try:
        agent_spec.make_opponents(opponents, game.num_players, people, 0)  # refuse a bad spec before serving
        session = Session(
            game,
            ruleset,
            _fresh_seed() if seed is None else seed,
            people=people,
            opponents=opponents,
            hot_seat=hot_seat,
            record=None if record_folder is None else Path(record_folder),
        )
    except agent_spec.AgentSpecError as error:
        raise ChoiceError(str(error)) from None
    try:
        server.run(session, host, port, bot_delay, _say)
    except server.ListenError as error:
        raise ChoiceError(str(error)) from None


@main.command()
def schema() -> None:
    """Print the JSON Schema (draft-07) of rule files, for editors and other checkers.

    Save it once, e.g. `rulesengine schema > rule-file.schema.json`, and point your
    editor at it (see docs/tooling.md).
    """
    from . import authoring

    click.echo(authoring.schema_text(), nl=False)


@main.command(name="describe")
@click.argument("ruleset")
def describe_command(ruleset: str) -> None:
    """Summarise RULESET (a path or a shipped name): players, options, decks, zones, phases, moves."""
    from .describe import describe

    _say(*describe(_load_ruleset(ruleset)).split("\n"))


def _reference(base: str, new_file: Path, loaded: str) -> str:
    """How the new file names its base: a shipped name as it is, a file by a path relative to it.

    A rule file may extend only files in its own folder or below (see docs/tooling.md), so
    a base elsewhere is refused here rather than written into a file that cannot load. So is
    a shipped name that, read from the new file's folder, would name a file there (NAME with
    a NAME.yaml beside the new file), the new file itself among them: the file would not
    extend the base it describes.
    """
    folder = new_file.parent
    if not Path(base).is_file():
        reference = base
    else:
        target, here = Path(base).resolve(), folder.resolve()
        if not target.is_relative_to(here):
            raise ChoiceError(
                f"{printable(base)} is not in the new file's folder or below it, so the new file could not extend "
                "it; put the new file next to its base (or in a folder below it)"
            )
        reference = target.relative_to(here).as_posix()
    from .compose import find_reference

    own = new_file.resolve()
    if own in ((folder / reference).resolve(), (folder / f"{reference}.yaml").resolve()):
        raise ChoiceError(
            f"in its folder, `extends: {printable(reference)}` would name the new file {printable(str(new_file))} "
            f"itself, which would then extend itself; give the new file another name, such as "
            f"{printable(own.stem)}-variant.yaml"
        )
    named = find_reference(reference, folder.resolve())
    if named is not None and not os.path.samefile(named, loaded):
        local = Path(os.path.relpath(named)).as_posix()
        local = local if "/" in local else f"./{local}"
        raise ChoiceError(
            f"in the new file's folder, `extends: {printable(reference)}` would name the file {printable(local)}, "
            f"not the shipped ruleset {printable(base)}; to extend that file, give --extends {printable(local)}; "
            f"to extend the shipped {printable(base)}, write the new file in a folder without a {printable(named.name)}"
        )
    return reference


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--extends",
    "base",
    metavar="RULESET",
    help="Write a variant of RULESET (a shipped name or a path) listing its options instead.",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it already exists (a regular file, or a link to one).")
def new(file: str, base: str | None, force: bool) -> None:
    """Write a new rule file: a small complete game to start from, or a variant of RULESET."""
    from . import atomic, authoring

    path, shown = Path(file), printable(file)
    if not path.name:  # "" is the working folder
        raise UsageError("new needs the name of the file to write, e.g. game.yaml")
    if file.endswith(("/", os.sep)):  # Path() drops the slash: it would write a file of the folder's name
        raise UsageError(f"{shown} names a folder, not a file: name the file to write in it, e.g. {shown}game.yaml")
    if fileformat.is_test_file(path.name):  # validate, test and the editor would read the rules as tests
        stem = printable(path.name.rsplit(".tests.", 1)[0] or "game")
        raise UsageError(
            f"{shown} is named as a scenario test file (NAME.tests.yaml), which every command reads as tests, "
            f"not as rules; name the rule file {stem}.yaml (its tests go in {stem}.tests.yaml)"
        )
    exists = ChoiceError(f"{shown} already exists; choose another name, or add --force to overwrite it")
    try:  # everything is checked before anything is written
        real = atomic.target(path, replace=force)
    except FileExistsError:
        raise exists from None
    except OSError as error:
        raise ChoiceError(f"cannot write {shown}: {error.strerror or error}") from None
    folder = path.parent.resolve()
    header = authoring.schema_comment(folder)
    schema_file = path.parent / authoring.SCHEMA_FILE if authoring.needs_schema(folder) else None
    if schema_file is not None:  # none near: new writes one, never over an entry of another kind
        try:
            atomic.target(schema_file, replace=False)
        except OSError as error:
            raise ChoiceError(
                f"cannot write {printable(str(schema_file))}, the schema {shown} would point at: "
                f"{error.strerror or error}; move it away, or write the new file in another folder"
            ) from None
    if base is None:
        text = header + authoring.starter_game(path.name)
    else:
        ruleset = _load_ruleset(base)
        if any(same_file(path, source) for source in api.composed_files(ruleset)):
            raise ChoiceError(
                f"{shown} is {printable(base)} or a file it is built from: a variant cannot replace its base"
            )
        text = header + authoring.variant(ruleset, _reference(base, path, ruleset.file), path.name)
    files = [(path, text, force)]
    if schema_file is not None:  # written first: the rule file's first line points at it
        files.insert(0, (schema_file, authoring.schema_text(), False))
    try:
        authoring.write_all(files)
    except OSError as error:
        if isinstance(error, FileExistsError) and error.filename == str(path):  # made meanwhile by someone else
            raise exists from None
        raise ChoiceError(f"cannot write {printable(str(error.filename))}: {error.strerror or error}") from None
    if schema_file is not None:
        click.echo(f"wrote {printable(str(schema_file))}, the schema your editor checks rule files with")
    stale = authoring.stale_schema(folder)
    if stale is not None:
        shown_stale = printable(str(stale))
        click.echo(
            f"note: {shown_stale} is not this rulesengine's schema; renew it: rulesengine schema > {shown_stale}",
            err=True,
        )
    if path.is_symlink():
        where = printable(os.path.relpath(real))
        click.echo(f"wrote {where}, which {shown} links to; check it with: rulesengine validate {shown}")
    else:
        click.echo(f"wrote {shown}; check it with: rulesengine validate {shown}")


@main.command(name="compile")
@click.argument("ruleset")
@_players
@_options
@click.option("--no-optimize", is_flag=True, help="The reference mode: every construct compiled directly, no passes.")
def compile_command(ruleset: str, players: int | None, options: tuple[str, ...], no_optimize: bool) -> None:
    """Print the Python generated for RULESET (a path or a shipped name) in one game setting,
    with the rule-file position of each statement as a comment."""
    import inspect

    from . import compile as compiler  # the module, not the built-in

    if not no_optimize:
        click.echo(compiler.listing(_load_game(ruleset, players, options).program), nl=False)
        return
    if "optimize" not in inspect.signature(compiler.compile_program).parameters:
        raise ChoiceError("--no-optimize: this build has no reference mode (compile_program takes no 'optimize')")
    checked = _load_ruleset(ruleset)
    count = _player_count(checked, players)
    try:
        values = api.resolve_options(checked, _parse_options(options))
        program = compiler.compile_program(checked, values, count, optimize=False)  # type: ignore[call-arg]
    except RulesEngineError as error:
        raise ChoiceError(str(error)) from None
    click.echo(compiler.listing(program), nl=False)


def _paths_from(args: list[str]) -> int:
    """Where the arguments that can only be paths begin (after `--`)."""
    return args.index("--") if "--" in args else len(args)


@main.command(name="test", cls=_OneDocumentCommand, empty_document=_nothing_tested)
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github", "junit"]),
    default="text",
    show_default=True,
    help="How to print the results.",
)
@click.option("--strict", is_flag=True, help="Treat warnings in the test files as failures.")
@click.option("--verbose", "-v", is_flag=True, help="Name every test with PASS or FAIL (text format).")
@click.option(
    "--trace",
    is_flag=True,
    help="Print the table clause -> tests of each file's rules document instead; exit 1 if a clause is "
    "neither covered nor declared not testable.",
)
def test_command(paths: tuple[str, ...], output_format: str, strict: bool, verbose: bool, trace: bool) -> None:
    """Run the scenario tests of rule files (NAME.tests.yaml files, folders, or rule files).

    A path that names nothing is a usage error (exit 2), but the other paths are still run
    and their results printed in the format asked for.
    """
    from . import scenario_report

    if trace and output_format not in ("text", "json"):
        empty = scenario_report.empty_report(output_format, trace)  # JUnit XML: still one document
        if empty is not None:
            click.echo(empty)
        raise UsageError(f"--trace prints its table as text or json, not {output_format}")
    collected = scenario_report.collect(paths)
    nothing = not collected.files and not collected.refused
    if trace:  # the table needs the tests' citations, not their outcomes
        traced = scenario_report.trace(collected, output_format, strict)
        if output_format == "json" or not nothing:
            click.echo(traced.shown)
        if traced.problems:  # as validate shows them: a file with problems fails the trace too
            click.echo(render_text(traced.problems, {}, colour=_colour(sys.stderr)), err=True)
        failed = traced.failed
    else:
        results = [*collected.refused, *scenario_report.run_each_once(collected.files)]
        if output_format == "json":
            click.echo(scenario_report.as_json(results))
        elif output_format == "github":
            shown = scenario_report.github(results)
            if shown:
                click.echo(shown)
        elif output_format == "junit":
            click.echo(scenario_report.junit(results, strict))
        elif not nothing:  # text: the usage error alone when nothing was run
            complete = not collected.unusable
            colour = sys.stdout.isatty()
            click.echo(scenario_report.text(results, verbose=verbose, colour=colour, strict=strict, complete=complete))
        failed = scenario_report.failed(results, strict)
    if collected.unusable:
        raise UsageError("\n".join(collected.unusable))
    raise SystemExit(1 if failed else 0)


@main.command(name="lsp")
def lsp_command() -> None:
    """Run the language server for rule files over stdin and stdout (needs the `lsp` extra)."""
    try:
        from .lsp.server import serve
    except ImportError as error:
        raise ChoiceError(f"the language server needs pygls: pip install 'rulesengine[lsp]' ({error})") from None
    serve()


def entry() -> None:
    """Console entry point: usage errors exit with 2, never with a traceback."""
    _collect_less_often()
    try:
        _run()
    except SystemExit as stop:
        quick_exit(stop.code)
    quick_exit(0)


def _collect_less_often() -> None:
    """A command builds many objects that live until it ends (YAML nodes, syntax trees, the
    checked rules) and little garbage in cycles; at the collector's default threshold (a
    collection every 700 new objects) it walks the same live objects again and again, about
    a quarter of the time of checking the shipped rule files. Every 20,000 keeps what cyclic
    garbage waits for collection small."""
    gc.set_threshold(20_000, *gc.get_threshold()[1:])


def _run() -> None:
    for stream in (sys.stdout, sys.stderr):  # a name with a lone surrogate prints as an escape
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        main.main(standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("aborted", err=True)
        raise SystemExit(130) from None
    except click.ClickException as error:
        error.show()
        raise SystemExit(2) from None
    except RulesEngineError as error:
        click.echo(f"error: {printable(str(error))}", err=True)
        raise SystemExit(1) from None
    except SystemExit:
        raise
    except BrokenPipeError:
        raise SystemExit(1) from None
    except OSError as error:  # e.g. the output on a full disk (`> /dev/full`)
        place = printable(str(error.filename)) if error.filename else "writing the output"
        click.echo(f"error: {place}: {error.strerror or error}", err=True)
        raise SystemExit(1) from None


if __name__ == "__main__":
    entry()
