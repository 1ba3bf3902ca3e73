"""Dynamic checks for CI: play matches of a setting and turn what went wrong into
diagnostics that point at the rule concerned (codes RE400-RE405)."""

from __future__ import annotations

from typing import Any

from ..diagnostics import ERROR, WARNING, Diagnostic
from ..engine import Game
from .locate import key_span

DEFAULT_LIMIT_SHARE = 0.05


def setting_text(game: Game) -> str:
    """A game setting as a finding names it: `3 players, target=40`."""
    return f"{game.num_players} players" + "".join(f", {k}={v}" for k, v in game.options.items())


def findings(
    game: Game,
    analysis: dict[str, Any],
    limit_share: float | None = None,
    unused_options: list[dict[str, Any]] | None = None,
) -> list[Diagnostic]:
    """The problems `analysis` (of `game`) shows, as diagnostics. `limit_share` (the command
    line's) overrides the rule file's `round.limit.accepted_share`, which overrides the default."""
    r = game.ruleset
    if limit_share is None:
        limit_share = r.round_limit_share if r.round_limit_share is not None else DEFAULT_LIMIT_SHARE
    file = r.file
    setting = setting_text(game)
    games = analysis["games"]
    out: list[Diagnostic] = []
    capped = analysis["endings"]["matches"]["engine_cap"]
    if capped:
        out.append(
            Diagnostic(
                "RE400",
                f"{capped} of {games} matches ({setting}) stopped at the engine's limit of {game.max_steps} decisions",
                key_span(file, "match"),
                ERROR,
                "a match must end by its own rules; check match.until and the round's end",
            )
        )
    rounds = analysis["endings"]["rounds"]
    all_rounds = sum(rounds.values())
    if all_rounds and rounds["limit"] / all_rounds > limit_share:
        out.append(
            Diagnostic(
                "RE401",
                f"{rounds['limit']} of {all_rounds} rounds ({rounds['limit'] / all_rounds:.1%}, {setting}) "
                f"ended at the declared turn limit (threshold {limit_share:.1%})",
                key_span(file, "round", "limit"),
                ERROR,
                "rounds should usually end by their own rules; if this is intended, say so in "
                "round.limit.accepted_share (or raise --limit-share)",
            )
        )
    moves = {m.name: m for m in r.moves}
    for name in analysis["coverage"]["moves_never_legal"]:
        out.append(
            Diagnostic(
                "RE402",
                f"move '{name}' was never legal in {games} matches ({setting})",
                moves[name].span,
                ERROR,
                "its candidates or legality may never be satisfied",
            )
        )
    for name in analysis["coverage"]["triggers_never_fired"]:
        out.append(
            Diagnostic(
                "RE403",
                f"trigger '{name}' never fired in {games} matches ({setting})",
                key_span(file, "triggers", name),
                ERROR,
                "its condition may never hold",
            )
        )
    for name in analysis["coverage"]["phases_never_entered"]:
        out.append(
            Diagnostic(
                "RE404",
                f"phase '{name}' was never entered in {games} matches ({setting})",
                key_span(file, "phases", name),
                WARNING,
            )
        )
    for unused in unused_options or []:
        out.append(
            Diagnostic(
                "RE405",
                f"option '{unused['option']}' changed nothing in {unused['matches']} matches ({setting}): "
                f"{unused['value']} and {unused['tried']} played alike",
                unused["span"],
                WARNING,
                "it may matter only for other player counts or options",
            )
        )
    return out
