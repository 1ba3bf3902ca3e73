"""Card moves of an untracked state, written out in generated code, move cards as the methods do.

A state made with `track=False` moves cards onto the top of a zone not kept sorted without
calling the state's method (rulesengine/inline_moves.py); a tracked state calls the method,
and the reference mode (`optimize=False`, rulesengine/reference.py) moves cards its own way.
These tests play the same matches three ways side by side — tracked, untracked, and untracked
in the reference mode — and compare the zones, `where`, the variables, the cards shown (a
reveal of a zone is written out too), the log and the legal actions after every step: on one
small rule file per corner of a move (below), on every shipped ruleset and example, and on
games generated from the grammar (tests/gamegen.py). Each corner's rule file logs a marker
when its corner happens, and the test checks that it did.
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import EngineError
from rulesengine.diagnostics import RuleFileError
from tests.game_checks import SHIPPED_SETTINGS, uncovered
from tests.gamegen import generate

TEMPLATE = """\
rulesengine: 1
name: Move corner {name}
players: {{min: 2, max: 3, default: 2}}
decks:
  standard:
    suits: [hearts, spades]
    ranks: ["1", "2", "3", "4", "5", "6"]
    zone: stock
zones:
  stock: {{visibility: nobody}}
  hand: {{per: player, visibility: owner}}
  pile: {{visibility: all}}
  row: {{visibility: all, sorted_by: order}}
round:
  setup:
    - shuffle stock
    - deal 3 of stock to hand from seat(0)
    - move top(stock, 2) to pile
  limit:
    turns: 40
phases:
  play:
    moves: [act, draw, lay, refill]
moves:
  act:
{act}
  draw:
    effects: ["move top(stock) to hand[me]"]
  lay:
    params: {{card: "hand[me]"}}
    effects: ["move card to pile"]
  refill:
    legal: empty(stock)
    effects: ["move pile to stock", "move row to stock", "shuffle stock"]
match:
  until: round >= 2
"""

# corner -> (the move `act`, the markers its effects log when the corner happens)
CORNERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "card-already-on-top-stays": (
        """
        params: {card: "pile"}
        effects:
          - if: card == top(pile)
            then: [log "on top already"]
          - move card to pile
        """,
        ("on top already",),
    ),
    "card-within-its-zone-goes-on-top": (
        """
        params: {card: "hand[me]"}
        effects:
          - if: card != top(hand[me])
            then: [log "within its zone"]
          - move card to hand[me]
        """,
        ("within its zone",),
    ),
    "no-card-is-skipped": (
        """
        effects:
          - if: empty(stock)
            then: [log "no card"]
          - move top(stock) to hand[me]
          - move top(stock) to hand[left(me)]
          - move bottom(row) to pile
        """,
        ("no card",),
    ),
    "sorted-destination": (
        """
        params: {card: "hand[me] + pile"}
        effects:
          - if: size(row) > 1
            then: [log "sorted"]
          - move card to row
          - move top(pile, 2) to row
        """,
        ("sorted",),
    ),
    "at-bottom": (
        """
        params: {card: "hand[me]"}
        effects:
          - if: size(pile) > 1
            then: [log "at bottom"]
          - move card to pile at bottom
          - move top(pile, 2) to hand[me] at bottom
          - move hand[left(me)] to stock at bottom
        """,
        ("at bottom",),
    ),
    "empty-source": (
        """
        params: {k: "range(0, 3)"}
        effects:
          - if: empty(row)
            then: [log "empty source"]
          - move row to hand[me]
          - move top(row, k) to pile
          - move top(row, 1) to pile
          - move top(row, 2) to pile
        """,
        ("empty source",),
    ),
    "count-larger-than-the-zone-or-not-positive": (
        """
        params: {k: "range(11)"}
        effects:
          - if: k - 2 > size(pile)
            then: [log "more than the zone"]
          - if: k - 2 <= 0
            then: [log "none"]
          - move top(pile, k - 2) to hand[me]
          - move top(hand[me], 9) to pile
          - move top(pile, 0) to hand[me]
          - move top(stock, k - 5) to hand[left(me)]
        """,
        ("more than the zone", "none"),
    ),
    "a-zone-onto-itself": (
        """
        params: {k: "range(5)"}
        effects:
          - if: size(hand[me]) > 1
            then: [log "onto itself"]
          - move hand[me] to hand[me]
          - move top(hand[me], k - 1) to hand[me]
          - move top(pile, 1) to pile
          - move hand[seat(k)] to hand[me]
        """,
        ("onto itself",),
    ),
    "a-draw-of-one": (
        """
        effects:
          - if: empty(stock)
            then: [log "empty stock"]
          - move top(stock, 1) to hand[me]
          - move top(hand[me], 1) to hand[left(me)]
        """,
        ("empty stock",),
    ),
    "a-list-of-cards": (
        """
        params: {card: "hand[me]"}
        effects:
          - if: size(hand[me]) > 1
            then: [log "several"]
          - move hand[me].filter(c, c.order > 2) + pile to pile
          - move [card, card, top(stock)] + hand[me] to hand[left(me)]
        """,
        ("several",),
    ),
}


def corner_file(tmp_path: Path, corner: str) -> str:
    act, _ = CORNERS[corner]
    path = tmp_path / f"{corner}.yaml"
    path.write_text(TEMPLATE.format(name=corner, act=textwrap.indent(textwrap.dedent(act).strip(), "    ")))
    return str(path)


def outcome(what: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
    """`what(*args)`, or the error it raised, as text."""
    try:
        return what(*args), None
    except EngineError as error:
        return None, f"{type(error).__name__}: {error}"


def three_ways(
    game: rulesengine.Game, reference: rulesengine.Game, seed: int | None, choices: int, max_steps: int = 200
) -> list[str]:
    """One match played tracked, untracked, and untracked in the reference mode, side by side:
    the same cards, variables, cards shown, log and legal actions at every step. The log, at
    the end."""
    rng = random.Random(choices)
    started = [
        outcome(game.new_initial_state, seed, True, True),
        outcome(game.new_initial_state, seed, True, False),
        outcome(reference.new_initial_state, seed, True, False),
    ]
    errors = {error for _, error in started}
    assert len(errors) == 1, errors
    if None not in errors:  # a rule failing at run time fails alike on every path
        return []
    states = [state for state, _ in started]
    tracked = states[0]
    for step in range(max_steps):
        for other in states[1:]:
            fields = ("zones", "where", "vars", "shown", "shown_any", "log", "current", "phase", "round_number")
            for field in (*fields, "game_over"):
                assert getattr(other, field) == getattr(tracked, field), (step, field)
            assert other.legal_actions() == tracked.legal_actions(), step
        if tracked.is_terminal():
            break
        if tracked.is_chance_node():
            action = rng.choice([outcome for outcome, _ in tracked.chance_outcomes()])
        else:
            action = rng.choice(tracked.legal_actions())
        errors = {outcome(state.apply_action, action)[1] for state in states}
        assert len(errors) == 1, errors
        if None not in errors:
            break
    assert tracked.log is not None
    return tracked.log


@pytest.mark.parametrize("corner", sorted(CORNERS))
def test_a_corner_is_written_out_unless_sorted_or_at_bottom(tmp_path: Path, corner: str) -> None:
    """The corners' moves onto the top of zones not kept sorted are written out for an
    untracked state (else these tests would compare the method with itself), the others not."""
    game = rulesengine.make_game(corner_file(tmp_path, corner))
    act = "\n".join(g.source for g in game.program.source if "move act" in g.heading)
    assert act
    assert ("st._track" in act) == (corner not in ("sorted-destination", "at-bottom"))


@pytest.mark.parametrize("corner", sorted(CORNERS))
def test_a_corner_moves_alike_tracked_untracked_and_in_the_reference_mode(tmp_path: Path, corner: str) -> None:
    path = corner_file(tmp_path, corner)
    seen: list[str] = []
    for players in (2, 3):
        game = rulesengine.make_game(path, players=players)
        reference = rulesengine.make_game(path, players=players, optimize=False)
        for choices in range(4):
            seen += three_ways(game, reference, None if choices == 3 else choices, choices)
    text = "\n".join(seen)
    for marker in CORNERS[corner][1]:
        assert marker in text, marker


SETTINGS = SHIPPED_SETTINGS


@pytest.mark.parametrize(("name", "players", "options"), SETTINGS, ids=lambda v: Path(str(v)).stem)
def test_shipped_games_move_alike_three_ways(name: str, players: int | None, options: dict) -> None:
    game = rulesengine.make_game(name, players=players, options=options)
    reference = rulesengine.make_game(name, players=players, options=options, optimize=False)
    for choices in range(2):
        three_ways(game, reference, None if choices else 5, choices, max_steps=150)


def test_every_shipped_ruleset_and_example_is_covered() -> None:
    assert not uncovered(SETTINGS)


@settings(max_examples=25, deadline=None)
@given(number=st.integers(0, 10**6), seed=st.integers(0, 2**32), chance=st.booleans())
def test_generated_games_move_alike_three_ways(tmp_path_factory, number: int, seed: int, chance: bool) -> None:
    path = tmp_path_factory.mktemp("generated") / f"game{number}.yaml"
    path.write_text(generate(number))
    try:
        game = rulesengine.make_game(str(path))
        reference = rulesengine.make_game(str(path), optimize=False)
    except RuleFileError:  # a generated option setting out of a range: not this test's concern
        return
    three_ways(game, reference, None if chance else seed, seed, max_steps=100)
