"""The rules of examples/in-between.yaml: chips against the house, a random first dealer,
posts dealt again while they pair, and a stock made again from the discards."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesengine import api
from rulesengine.engine import State

GAME = str(Path(__file__).resolve().parent.parent / "examples" / "in-between.yaml")


def _zone(state: State, name: str, player: int | None = None) -> list[int]:
    family = state.program.families[name]
    return state.zones[family.base + (player or 0)]


def _order(state: State, card: int) -> int:
    return state.program.attributes["order"][card]


def _posts(state: State, player: int) -> tuple[int, int]:
    low, high = sorted(_order(state, c) for c in _zone(state, "posts", player))
    return low, high


def test_the_first_dealer_is_a_chance_node_over_the_seats() -> None:
    game = api.make_game(GAME, players=5)
    state = game.new_initial_state()  # no seed: chance nodes
    assert state.current_player() == -1
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(5))
    assert all(abs(p - 0.2) < 1e-12 for _, p in outcomes)
    assert [state.action_to_string(a) for a, _ in outcomes] == [f"chance: P{k}" for k in range(1, 6)]
    state.apply_action(3)
    assert state.variables()["dealer"] == 3


def test_a_seed_draws_the_first_dealer() -> None:
    game = api.make_game(GAME, players=4)
    dealers = {game.new_initial_state(seed=seed).variables()["dealer"] for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    # the same seed, the same dealer
    assert game.new_initial_state(seed=9).variables()["dealer"] == game.new_initial_state(seed=9).variables()["dealer"]


def _play(state: State, rng: random.Random, each) -> State:
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choice(outcomes)[0])
            continue
        each(state)
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6), chance=st.booleans())
def test_bets_are_paid_as_the_rules_say(seed: int, players: int, chance: bool) -> None:
    game = api.make_game(GAME, players=players, options={"hands": 3})
    rng = random.Random(seed)
    state = game.new_initial_state(seed=None if chance else seed)
    checked = []

    def each(state: State) -> None:
        me = state.current_player()
        chips = state.variables()["chips"][me]
        low, high = _posts(state, me)
        names = {state.game.decode(a)[0].name: a for a in state.legal_actions()}
        if high - low <= 1 or chips == 0:
            assert set(names) == {"stand_off"}, "no card can fall between: the player must stand off"
            return
        bets = [state.game.decode(a)[1][0] for a in state.legal_actions() if state.game.decode(a)[0].name == "bet"]
        assert bets == list(range(1, min(5, chips) + 1))
        amount = rng.choice(bets)
        stock = _zone(state, "stock")
        if not stock:
            return  # the card comes from a new stock, shuffled at a chance node
        turned = _order(state, stock[-1])  # the bet turns the top card of the stock
        after = state.clone()
        action = next(a for a in state.legal_actions() if state.game.decode(a)[1] == (amount,))
        after.apply_action(action)
        change = after.variables()["chips"][me] - chips
        if low < turned < high:
            assert change == amount
        elif turned in (low, high):
            assert change == -min(2 * amount, chips)
        else:
            assert change == -amount
        checked.append(change)

    _play(state, rng, each)
    chips = state.variables()["chips"]
    assert all(c >= 0 for c in chips)
    # each player's result is what they won or lost against the house (stack 20)
    assert state.returns() == [float(c - 20) for c in chips]
    assert (state.game.utility.minimum, state.game.utility.maximum) == (-20, 5 * 3)  # limit 5, 3 hands


def _first_decisions(state: State, rng: random.Random, seen: list) -> None:
    last_round = -1
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        if state.round_number != last_round:
            last_round = state.round_number
            seen.append([_posts(state, p) for p in state.active_players])
        state.apply_action(rng.choice(state.legal_actions()))


def test_paired_posts_are_dealt_again() -> None:
    redealt, kept = [], []
    for seed in range(25):
        game = api.make_game(GAME, players=6, options={"hands": 4})
        _first_decisions(game.new_initial_state(seed=seed), random.Random(seed), redealt)
        plain = api.make_game(GAME, players=6, options={"hands": 4, "redeals": 0})
        _first_decisions(plain.new_initial_state(seed=seed), random.Random(seed), kept)
    pairs = sum(low == high for hand in kept for low, high in hand)
    assert pairs > 0, "without redeals some posts pair"
    # with three redeals a pair stays only when four pairs come in a row (about 1 in 5,000)
    assert sum(low == high for hand in redealt for low, high in hand) * 20 < pairs


def test_an_empty_stock_is_made_again_from_the_discards() -> None:
    game = api.make_game(GAME, players=6, options={"hands": 12, "stack": 200})
    state = game.new_initial_state(seed=4, record_log=True)
    rng = random.Random(4)
    drawn = 0
    while not state.is_terminal():
        before = len(_zone(state, "stock"))
        state.apply_action(rng.choice(state.legal_actions()))
        after = len(_zone(state, "stock"))
        drawn += max(0, before - after)
        assert sum(len(zone) for zone in state.zones) == 52
    assert drawn > 52
    assert any("shuffled into a new stock" in line for line in state.log)
