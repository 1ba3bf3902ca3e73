"""Checks every game must pass at every step; shared by the tests of all rulesets."""

from __future__ import annotations

import random
from pathlib import Path

from rulesengine import State

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# Each shipped ruleset at least once, and every example at its default player count.
SHIPPED_SETTINGS: list[tuple[str, int | None, dict]] = [
    ("pan", 3, {}),
    ("pan-reversed-spades", 2, {}),
    ("padan", 2, {}),
    ("padan-original", 2, {}),
    ("padvinderspel", 4, {}),
    ("padvinderspel", 3, {"attach": "higher_only"}),
    *((str(path), None, {}) for path in sorted(EXAMPLES.glob("*.yaml"))),
]


def dealt_round(cards: int) -> str:
    """The `round:` section of a small test game (zones stock, hand per player, pile): every
    card gathered into the stock, shuffled, and `cards` dealt to each player."""
    return f"""round:
  setup:
    - move pile to stock
    - for: p in players
      do:
        - move hand[p] to stock
    - shuffle stock
    - deal {cards} of stock to hand from seat(round)
"""


def file_order_number(game, key: int) -> int:
    """How replays of versions 1 and 2 numbered a complete action (given by the engine's key):
    every move's actions after the previous move's, in file order."""
    start = 0
    for move in game.program.moves:
        if move.offset <= key < move.offset + move.width:
            return start + key - move.offset
        start += move.width
    raise AssertionError(f"no move has key {key}")


def uncovered(settings: list[tuple]) -> set[str]:
    """The shipped rulesets and examples that no setting of `settings` (name first) plays."""
    named = {Path(setting[0]).stem for setting in settings}
    shipped = {p.stem for p in (ROOT / "rulesets").glob("*.yaml")} | {p.stem for p in EXAMPLES.glob("*.yaml")}
    return shipped - named


def assert_cards_conserved(state: State) -> None:
    """Every card lies in exactly one zone, and the state's index of places agrees."""
    seen = sorted(card for zone in state.zones for card in zone)
    assert seen == list(range(state.program.num_cards))
    for index, zone in enumerate(state.zones):
        for card in zone:
            assert state.where[card] == index


def visible_cards(state: State, player: int) -> dict[str, list[str]]:
    """The zones `player` may look into, with their cards, from the full state."""
    program = state.program
    out = {}
    for index, cards in enumerate(state.zones):
        visibility = program.zone_visibility[index]
        if visibility == "all" or (visibility == "owner" and program.zone_owner[index] == player):
            out[program.zone_names[index]] = [program.card_names[c] for c in cards]
    return out


def assert_observations_hide_cards(state: State) -> None:
    """Each player's observation names exactly the cards of the zones it may see."""
    for player in range(state.num_players):
        observation = state.observation(player)
        allowed = visible_cards(state, player)
        for zone, content in observation["zones"].items():
            if zone in allowed:
                assert content == allowed[zone]
            else:
                assert isinstance(content, int), f"P{player + 1} sees hidden zone {zone}"
                assert content == len(state.card_locations()[zone])
        shown = set(observation["shown"])
        assert shown <= {state.program.card_names[c] for c in state.shown[player]}


def play_random(state: State, seed: int, max_steps: int | None = None, each_step=None) -> State:
    """Random legal moves until the end (or `max_steps`); `each_step(state)` after every move."""
    rng = random.Random(seed)
    steps = 0
    while not state.is_terminal() and (max_steps is None or steps < max_steps):
        legal = state.legal_actions()
        assert legal, "the player to move has no legal action"
        state.apply_action(rng.choice(legal))
        steps += 1
        if each_step is not None:
            each_step(state)
    return state


def assert_replays_identically(game, seed: int) -> State:
    """A match played at random, then again from the same seed with the same actions,
    gives the same log, cards, variables and result; returns the first match."""
    first = play_random(game.new_initial_state(seed=seed, record_log=True), seed)
    again = game.new_initial_state(seed=seed, record_log=True)
    for action in first.actions():
        again.apply_action(action)
    assert again.is_terminal()
    assert again.log == first.log
    assert again.zones == first.zones and again.vars == first.vars
    assert again.returns() == first.returns()
    return first
