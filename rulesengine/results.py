"""A finished match's result as numbers: `State.returns()` and the checks of what the rules
declare about it (a constant sum, bounds).

Both execution paths build the same `ResultRules` (each with its own functions for the
returns expression), so the engine computes and checks results once, here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

from . import ir
from .diagnostics import EngineError, Span
from .limits import MAX_INTEGER
from .teams import TeamTable

Fn = Callable[[Any, list], Any]


@attrs.frozen
class ResultRules:
    returns: Fn | None  # each player's return, evaluated with `me` the player
    total: int | None  # the declared sum (0 for zero_sum)
    total_span: Span | None
    zero_sum: bool
    minimum: int | None
    maximum: int | None
    bounds_spans: tuple[Span | None, Span | None]
    shared_win: bool

    @property
    def declares_anything(self) -> bool:
        """Whether a finished match has something to be checked against."""
        return self.total is not None or self.minimum is not None or self.maximum is not None


NO_RULES = ResultRules(None, None, None, False, None, None, (None, None), False)


def result_rules(
    results: ir.Results | None, expr: Callable[[ir.Expr], Fn], constant: Callable[[ir.Expr], Any]
) -> ResultRules:
    """The rules of a game setting: `expr` compiles an expression, `constant` evaluates one of
    options and literals (a declared sum or bound is fixed for the setting)."""
    if results is None:
        return NO_RULES

    def value(e: ir.Expr | None) -> Any:
        return constant(e) if e is not None else None

    return ResultRules(
        expr(results.returns) if results.returns is not None else None,
        value(results.total),
        results.total.span if results.total is not None else None,
        results.zero_sum,
        value(results.minimum),
        value(results.maximum),
        (
            results.minimum.span if results.minimum is not None else None,
            results.maximum.span if results.maximum is not None else None,
        ),
        results.shared_win,
    )


@attrs.frozen
class Utility:
    minimum: float  # the lowest return a player can get
    maximum: float  # the highest
    total: float | None  # what the returns always add up to, when that is known


def utility(program: Any) -> Utility:
    """Declared bounds and sum, else what the kind of result implies: winners and losers
    give -1..+1, zero-sum when two equal teams (or two players) meet and no shared win can
    happen; numeric returns without bounds are bounded only by the language's integers."""
    rules = program.results or NO_RULES
    teams = program.teams
    if rules.returns is not None:
        low, high, total = -float(MAX_INTEGER), float(MAX_INTEGER), None
    else:
        sizes = {len(team) for team in teams.members} if teams is not None else {1}
        count = len(teams.members) if teams is not None else program.num_players
        low, high = -1.0, 1.0
        total = 0.0 if count == 2 and len(sizes) == 1 and not rules.shared_win else None
    if rules.minimum is not None:
        low = float(rules.minimum)
    if rules.maximum is not None:
        high = float(rules.maximum)
    if rules.total is not None:
        total = float(rules.total)
    return Utility(low, high, total)


def match_returns(state: Any, rules: ResultRules | None, teams: TeamTable | None, has_teams: bool) -> list[float]:
    """Each player's return at the end of a match (the caller handles unfinished matches)."""
    program = state.program
    n = program.num_players
    rules = rules or NO_RULES
    team_of = (lambda p: teams.members[teams.team_of[p]]) if has_teams and teams is not None else None
    if rules.returns is not None:
        return [float(rules.returns(state, state._env(p))) for p in range(n)]
    env = state._env(state.current)
    # nobody (-1) in the list is no player: `winners: [holder(top(pile))]` of an empty pile names no winner
    if program.winners is not None:
        winners = {p for p in program.winners(state, env) if 0 <= p < n}
    elif program.losers is not None:
        losers = {p for p in program.losers(state, env) if 0 <= p < n}
        if team_of is not None:  # a team loses together: its other members lose too
            losers |= {q for p in losers for q in team_of(p)}
        if not losers:
            return [1.0 if rules.shared_win else 0.0] * n
        if len(losers) == n:
            return [0.0] * n
        return [-1.0 if p in losers else 1.0 for p in range(n)]
    else:
        return [0.0] * n
    if team_of is not None:  # a team wins together
        winners |= {q for p in winners for q in team_of(p)}
    if not winners:
        return [0.0] * n
    if len(winners) == n:
        return [1.0 if rules.shared_win else 0.0] * n
    return [1.0 if p in winners else -1.0 for p in range(n)]


def verify(returns: list[float], rules: ResultRules) -> None:
    """A match's returns against the declared sum and bounds: an EngineError naming the
    declaration when they do not hold (the rules promised something the game does not keep)."""
    if rules.total is not None and rules.total_span is not None and sum(returns) != rules.total:
        what = "match.zero_sum" if rules.zero_sum else "match.constant_sum"
        raise EngineError(
            f"{_at(rules.total_span)}: the returns {_shown(returns)} add up to {_shown([sum(returns)])[1:-1]},"
            f" not {rules.total} as {what} declares"
        )
    for which, bound, span, sign in (
        ("min", rules.minimum, rules.bounds_spans[0], -1),
        ("max", rules.maximum, rules.bounds_spans[1], 1),
    ):
        if bound is None or span is None:
            continue
        for player, value in enumerate(returns):
            if (value - bound) * sign > 0:
                raise EngineError(
                    f"{_at(span)}: P{player + 1} ends with the return {_shown([value])[1:-1]},"
                    f" beyond match.{which} {bound}"
                )


def _at(span: Span) -> str:
    return f"{span.file}:{span.line}:{span.column}"


def _shown(values: list[float]) -> str:
    return "[" + ", ".join(str(int(v)) if float(v).is_integer() else str(v) for v in values) + "]"
