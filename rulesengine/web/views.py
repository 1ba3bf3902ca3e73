"""What one seat's page shows, built only from what that seat may see.

Everything here starts from `State.observation(seat)` (zones the seat may look into, counts
of the others), `State.log_for(seat)` (another player's hidden move shows only its name)
and the seat's own legal actions when it is to move. The true state is read for nothing
else, so no hidden card can reach the seat's browser.
"""

from __future__ import annotations

from typing import Any

from .. import ir
from ..compile import Program
from ..engine import Game, State

LOG_LINES = 300  # the newest lines of the log a message carries; the page keeps no more
_RED_SYMBOLS = ("♥", "♦", "♡", "♢")  # drawn red when the suit names no colour of its own


def card_faces(program: Program) -> dict[str, dict[str, Any]]:
    """How to draw each card, by its name: rank, suit, and the suit's symbol and colour from
    the deck definition. Public knowledge (the deck is in the rule file), looked up only for
    cards the seat sees."""
    faces: dict[str, dict[str, Any]] = {}
    suits, ranks = program.attributes["suit"], program.attributes["rank"]
    # the rank numbers index the compiled rank order (the reference mode keeps the ruleset's)
    rank_names = program.layout.ranks if program.layout is not None else tuple(program.ruleset.ranks)
    suit_attributes = {suit.name: suit.attributes for suit in program.ruleset.suits}
    for card, name in enumerate(program.card_names):
        suit = program.suit_names[suits[card]]
        attributes = suit_attributes.get(suit, {})
        symbol = attributes.get("symbol")
        colour = attributes.get("colour", attributes.get("color"))
        if colour is None and isinstance(symbol, str) and symbol in _RED_SYMBOLS:
            colour = "red"
        faces.setdefault(
            name,
            {
                "name": name,
                "rank": rank_names[ranks[card]],
                "suit": suit,
                "symbol": symbol if isinstance(symbol, str) else None,
                "colour": colour if isinstance(colour, str) else None,
            },
        )
    return faces


def _zone_kind(dimensions: tuple[str | int, ...]) -> str:
    """How the page lays a zone out: a hand (per player), a row (per suit), numbered piles
    (a count dimension), or a shared pile."""
    if not dimensions:
        return "pile"
    if dimensions == ("player",):
        return "hand"
    if dimensions == ("suit",):
        return "row"
    return "piles"


def zones(program: Program, observation: dict[str, Any], faces: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every zone with its cards when the seat sees them, else only their number."""
    family_of: dict[int, tuple[str, str]] = {}
    for family in program.families.values():
        for slot in range(family.base, family.base + family.count):
            family_of[slot] = (family.name, _zone_kind(family.dimensions))
    out = []
    for slot, name in enumerate(program.zone_names):
        content = observation["zones"][name]
        family_name, kind = family_of.get(slot, (name, "pile"))
        seen = isinstance(content, list)
        out.append(
            {
                "name": name,
                "family": family_name,
                "kind": kind,
                "owner": program.zone_owner[slot],
                "visible": seen,
                "count": len(content) if seen else content,
                "cards": [faces[card] for card in content] if seen else None,
            }
        )
    return out


def variables(game: Game, observation: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The variables: shared ones, and those with a value per player (shown by each seat)."""
    shared, per_player = [], []
    for name, each, type_ in game.program.variable_layout:
        value = observation["variables"][name]
        show = _player_name if type_ == ir.PLAYER else _plain
        if each:
            per_player.append({"name": name, "values": [show(v) for v in value]})
        else:
            shared.append({"name": name, "value": show(value)})
    return {"shared": shared, "per_player": per_player}


def _player_name(value: Any) -> Any:
    return f"P{value + 1}" if isinstance(value, int) and value >= 0 else None


def _plain(value: Any) -> Any:
    return value


def moves(state: State, seat: int) -> list[dict[str, Any]]:
    """The seat's legal actions when it is to move: an id (its place in
    `State.complete_actions()`, a whole action even where the engine takes a choice in
    steps), a readable label, the move's name and the cards it names (which the seat holds
    or sees), so the page can offer a move as its card, a set of cards, or a button."""
    if state.is_terminal() or state.is_chance_node() or state.current_player() != seat:
        return []
    names = state.program.card_names
    out = []
    for index, (move, values, label, _steps) in enumerate(state.complete_actions()):
        cards: list[str] = []
        for param, value in zip(move.params, values):
            if param.kind == "card":
                cards.append(names[value])
            elif param.kind in ("set", "subset"):
                cards.extend(names[c] for c in value)
        out.append({"id": index, "label": label, "move": move.name, "cards": cards})
    return out


def result(state: State, seat: int) -> dict[str, Any] | None:
    """The end of the match in words, from the seat's side; None while it goes on."""
    if not state.is_terminal():
        return None
    returns = state.returns()
    winners = [f"P{p + 1}" for p, r in enumerate(returns) if r > 0]
    if state.truncated:
        text = "the match stopped at the engine's decision limit: a draw"
    elif not winners and all(r == 0 for r in returns):
        text = "a draw"
    else:
        verdict = "you won" if returns[seat] > 0 else "you lost" if returns[seat] < 0 else "you drew"
        text = f"{verdict} (winners: {', '.join(winners) or 'nobody'})"
    return {"returns": returns, "text": text}


def seat_view(state: State, seat: int, faces: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The part of a state message that depends on the match: what `seat` may see now."""
    observation = state.observation(seat)
    log = state.log_for(seat)
    return {
        "seat": seat,
        "round": observation["round"],
        "phase": observation["phase"],
        "current": observation["current_player"],
        "direction": observation["direction"],
        "active": observation["active"],
        "zones": zones(state.program, observation, faces),
        "variables": variables(state.game, observation),
        "shown": [faces[card] for card in observation["shown"]],
        "last_move": observation["last_move"],
        "log": log[-LOG_LINES:],
        "log_total": len(log),
        "moves": moves(state, seat),
        "decisions": state.steps,
        "result": result(state, seat),
    }
