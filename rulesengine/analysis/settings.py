"""The settings of an analysis, checked before any match is played: the agents, the roles and
the standing (shared by `analyse` and the commands), and the rest of what `analyse` takes.

Each check has two voices: the command line's (`command_line=True`: the option as typed, e.g.
`--standing dealer: not a per-player number variable of GAME (choose from: ...)`) and
Python's (the parameter's name and the value as Python shows it). The words after the name
are the same. A refused setting is a `SettingError`.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import Any

from .. import ir
from ..agent_spec import AgentSpecError, parse_specs
from ..diagnostics import EngineError, OptionError, integer
from ..engine import Game
from ..limits import MAX_INTEGER
from .backends import MAX_WORKERS, resolve_workers
from .playout import standing_names

BACKENDS = ("local", "ray")


class _Shown(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 1000:  # Python will not write an int of more than 4,300 digits
            return f"{'a negative' if x < 0 else 'a'} whole number of about {int(x.bit_length() * 0.30103)} digits"
        return super().repr_int(x, level)


_shown = _Shown()
_shown.maxstring = 60
_shown.maxother = 60
_shown.maxlist = _shown.maxtuple = 6


class SettingError(OptionError, EngineError):
    """A setting of an analysis that is refused: a wrong type, an unknown name, a number out of
    range. An OptionError, as `make_game` raises for a bad setting; an EngineError too, as
    `analyse` raised for its numbers before."""


def shown(value: object) -> str:
    """`value` as Python writes it, cut short if long (a huge list must not fill the message)."""
    return _shown.repr(value)


def _names(value: object) -> bool:
    """Whether `value` is a sequence of names as a list or tuple is (a text is one name, not many)."""
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray))


def role_names(game: Game) -> list[str]:
    """The roles a game can report: its variables of type player, one for the whole game."""
    return [name for name, per_player, type_ in game.program.variable_layout if not per_player and type_ == ir.PLAYER]


def check_agents(game: Game, agents: Sequence[str], *, command_line: bool = False) -> tuple[str, ...]:
    """The agent specs by seat, each checked as `run` checks them, and no more of them than the
    seats (an extra agent would silently never play). On the command line `agents` is the text
    of `--agents` split at its commas, so that it is read back exactly."""
    label = "--agents" if command_line else "agents"
    if not command_line:
        if not _names(agents):
            one = f"; for one agent: ({agents!r},)" if isinstance(agents, str) else ""
            kind = "the text " if isinstance(agents, str) else ""
            raise SettingError(
                f"agents is a list or tuple of agent specs by seat, such as ('random', 'ismcts:500'), "
                f"not {kind}{shown(agents)}{one}"
            )
        if not agents:
            raise SettingError("agents is a list or tuple of at least one agent spec, such as ('random',), not ()")
        for spec in agents:
            if not isinstance(spec, str) or not spec.strip() or "," in spec:
                raise SettingError(
                    f"agents: each is one agent spec (one per seat), such as 'random' or 'ismcts:500', "
                    f"not {shown(spec)}"
                )
    text = ",".join(agents)
    try:
        parse_specs(text)  # each spec checked, an empty one among them too, as `run` checks them
    except AgentSpecError as error:
        raise SettingError(f"{label}: {error}") from None
    names = tuple(spec.strip() for spec in agents)
    seats = game.num_players
    if len(names) > seats:
        given = f"'{text}'" if command_line else shown(tuple(agents))
        raise SettingError(f"{label}: {len(names)} agents given for {seats} seat(s): {given}")
    return names


def check_roles(game: Game, roles: Sequence[str] | None, *, command_line: bool = False) -> tuple[str, ...] | None:
    """The roles to report (None: every one), each a variable of type player of the game."""
    if roles is None:
        return None
    variables = role_names(game)
    allowed = ", ".join(sorted(variables)) or "none"
    what = f"not a variable of type player (one for the whole game) of {game.ruleset.name} (choose from: {allowed})"
    if not command_line and not _names(roles):
        kind = "the text " if isinstance(roles, str) else ""
        raise SettingError(
            f"roles is None (every role) or a list or tuple of variable names of type player, such as "
            f"('{variables[0] if variables else 'dealer'}',), not {kind}{shown(roles)} (choose from: {allowed})"
        )
    for role in roles:
        if not isinstance(role, str) or role not in variables:
            raise SettingError(f"--role {role}: {what}" if command_line else f"roles: {shown(role)} is {what}")
    return tuple(dict.fromkeys(roles))  # each once, in the order given


def check_standing(game: Game, standing: str | None, *, command_line: bool = False) -> str | None:
    """The per-player number variable a standing is read from ('-' before it: lower is
    better), or None: the result rule."""
    if standing is None:
        return None
    names = standing_names(game.program)
    if not isinstance(standing, str) or standing.removeprefix("-") not in names:
        allowed = ", ".join(names) or "none"
        what = f"not a per-player number variable of {game.ruleset.name} (choose from: {allowed})"
        if command_line:
            raise SettingError(f"--standing {standing}: {what}")
        raise SettingError(f"standing: {shown(standing)} is {what}; '-' before the name: lower is better")
    return standing


def plan_settings(
    game: Game,
    agents: Sequence[str],
    roles: Sequence[str] | None,
    standing: str | None,
    *,
    command_line: bool = False,
) -> dict[str, Any]:
    """The agents, roles and standing of a plan of `game`, checked: `{"agents": ..., "roles":
    ..., "standing": ...}` as `make_plan` takes them. SettingError (an OptionError) names the
    first that is refused, as the parameter (or with `command_line`, the option) is named."""
    return {
        "agents": check_agents(game, agents, command_line=command_line),
        "roles": check_roles(game, roles, command_line=command_line),
        "standing": check_standing(game, standing, command_line=command_line),
    }


def check_game(game: object) -> Game:
    if not isinstance(game, Game):
        raise SettingError(f"game is a game made by rulesengine.make_game, not {shown(game)}")
    return game


# Each match takes its own seed (match k plays seed + k) among those `run --seed` takes.
MOST_MATCHES = 2 * MAX_INTEGER + 1


def highest_first_seed(matches: int) -> int:
    """The largest seed the first of `matches` matches may take: match k plays seed SEED+k,
    and every one must stay within the seeds `run --seed` takes."""
    return MAX_INTEGER - matches + 1


def check_matches(
    games: object, seed: object, *, played: int | None = None, command_line: bool = False
) -> tuple[int, int]:
    """The number of matches and the first seed: at least one match, and every match's seed
    (match k plays seed + k) within the seeds `run --seed` takes, so that each can be replayed.
    `played`: how many matches are played when that is more than `games` (a command that
    probes with matches of its own, of the same seeds)."""
    count, first = integer(games), integer(seed)
    games_name, seed_name = ("-n", "--seed") if command_line else ("games", "seed")
    if count is None or count < 1:  # the command line's type refuses it itself
        raise SettingError(f"games (the number of matches) is a whole number of at least 1, not {shown(games)}")
    if count > MOST_MATCHES:  # no seed helps
        raise SettingError(
            f"{games_name} is at most {MOST_MATCHES:,} matches, as many as there are seeds (each match takes its "
            f"own seed from {-MAX_INTEGER}..{MAX_INTEGER}), not {shown(count)}"
        )
    if first is None or not -MAX_INTEGER <= first <= MAX_INTEGER:  # as for games
        raise SettingError(f"seed is a whole number from {-MAX_INTEGER} to {MAX_INTEGER}, not {shown(seed)}")
    matches = max(count, played or count)
    highest = highest_first_seed(matches)
    if first > highest:
        given = f"-n {count}" if command_line else f"games={count}"
        plays = f" (at least {matches} matches are played)" if matches > count else ""
        raise SettingError(
            f"{seed_name} {first} with {given}{plays}: the seeds of the matches would run to {first + matches - 1}, "
            f"past the range {-MAX_INTEGER}..{MAX_INTEGER}; take a {seed_name} of at most {highest}"
        )
    return count, first


def check_workers(workers: object) -> int:
    """A number of worker processes, 1 to MAX_WORKERS, or "auto" (one per core), as `-j` takes."""
    if workers == "auto":
        return resolve_workers("auto")
    count = integer(workers)
    if count is None or not 1 <= count <= MAX_WORKERS:  # as `-j` is refused
        raise SettingError(f"workers is a whole number from 1 to {MAX_WORKERS} or 'auto', not {shown(workers)}")
    return count


def check_backend(backend: object, address: object, *, command_line: bool = False) -> None:
    """The backend, one of BACKENDS, and the address of a Ray cluster, given only with Ray (it
    would be ignored without a word)."""
    if not command_line and backend not in BACKENDS:  # the command line's choice refuses it itself
        raise SettingError(f"backend is {' or '.join(map(repr, BACKENDS))}, not {shown(backend)}")
    if address is None:
        return
    if backend != "ray":
        raise SettingError(
            "--address names a Ray cluster: give it with --backend ray"
            if command_line
            else "address names a Ray cluster: give it with backend='ray'"
        )
    if not isinstance(address, str) or not address.strip():  # "" would start a cluster here without a word
        what, here = ("--address", "leave it out") if command_line else ("address", "None")
        raise SettingError(
            f"{what} is the address of a Ray cluster, HOST:PORT or ray://HOST:PORT ({here}: start one here), "
            f"not {shown(address)}"
        )


def check_progress(progress: object) -> None:
    if progress is not None and not callable(progress):
        raise SettingError(
            f"progress is None or a function that takes the number of matches done, not {shown(progress)}"
        )


def check_probe(probe: object) -> None:
    if not isinstance(probe, bool):
        raise SettingError(f"probe is True or False, not {shown(probe)}")
