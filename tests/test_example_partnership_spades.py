"""examples/partnership-spades.yaml: the rules of its header, checked over random matches in
both execution modes — partnerships share their tricks and scores, spades are not led
before they are broken, contracts, sets and bags score as written, and each player's
result is their partnership's lead."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import State

FILE = Path(__file__).resolve().parent.parent / "examples" / "partnership-spades.yaml"


def game(optimize: bool = True, **options: object) -> rulesengine.Game:
    return rulesengine.make_game(FILE, options=options, optimize=optimize)


def suit(state: State, card: int) -> str:
    return state.program.suit_names[state.program.attributes["suit"][card]]


def zone(state: State, name: str, index: int) -> list[int]:
    return state.zones[state.program.families[name].base + index]


def phase(state: State) -> str:
    return state.program.ruleset.phases[state.phase].name if state.phase >= 0 else ""


def trick_cards(state: State) -> list[int]:
    return [c for p in range(4) for c in zone(state, "trick", p)]


def spade_rule_holds(state: State) -> None:
    """Before every decision: a spade leads only once broken or from a hand of spades alone,
    and `broken` says whether a spade has been played this deal."""
    if state.is_terminal() or phase(state) != "play":
        return
    played = [c for t in range(2) for c in zone(state, "won", t)] + trick_cards(state)
    broken = state.variables()["broken"]
    assert broken == any(suit(state, c) == "spades" for c in played)
    if trick_cards(state):
        return
    hand = zone(state, "hand", state.current)
    spade_leads = [a for a in state.legal_actions() if suit(state, state.game.decode(a)[1][0]) == "spades"]
    if not broken and any(suit(state, c) != "spades" for c in hand):
        assert spade_leads == []
    else:
        assert len(spade_leads) == sum(suit(state, c) == "spades" for c in hand)


def play(state: State, seed: int, bid=None, check=None) -> State:
    """Random play; `bid(player, rng)` chooses the bids when given."""
    rng = random.Random(seed)
    while not state.is_terminal():
        if check is not None:
            check(state)
        legal = state.legal_actions()
        if bid is not None and phase(state) == "bidding":
            amount = bid(state.current, rng)
            action = next(a for a in legal if state.game.decode(a)[1] == (amount,))
        else:
            action = rng.choice(legal)
        state.apply_action(action)
    return state


@pytest.mark.parametrize("optimize", [True, False])
@given(seed=st.integers(0, 2**31))
@settings(max_examples=8, deadline=None)
def test_one_deal_scores_each_partnership_contract(optimize: bool, seed: int) -> None:
    state = play(game(optimize, deals=1).new_initial_state(seed=seed), seed, check=spade_rule_holds)
    variables = state.variables()
    bids, points, contract, bags = variables["bid"], variables["points"], variables["contract"], variables["bags"]
    for p in range(2):
        partner = p + 2
        # one value per partnership, held by both partners
        assert (points[p], contract[p], bags[p]) == (points[partner], contract[partner], bags[partner])
        assert contract[p] == bids[p] + bids[partner]
        taken = len(zone(state, "won", p)) // 4
        assert taken == variables["tricks"][p] + variables["tricks"][partner]
        if taken >= contract[p]:
            over = taken - contract[p]
            assert points[p] == 10 * contract[p] + over - (100 if over >= 10 else 0)
            assert bags[p] == over - (10 if over >= 10 else 0)
        else:
            assert points[p] == -10 * contract[p] and bags[p] == 0
    assert len(zone(state, "won", 0)) + len(zone(state, "won", 1)) == 52
    lead = points[0] - points[1]
    assert state.returns() == [lead, -lead, lead, -lead]


def test_ten_bags_cost_a_hundred() -> None:
    # everybody bids nothing for two deals: all 26 tricks are bags, so a partnership passes ten
    for seed in range(4):
        state = game(deals=2).new_initial_state(seed=seed, record_log=True)
        play(state, seed, bid=lambda player, rng: 0)
        taken = [0, 0]
        for line in state.log:
            found = re.match(r"(P\d) and P\d bid 0 and take (\d+) - made", line)
            if found:
                taken[(int(found.group(1)[1]) - 1) % 2] += int(found.group(2))
        assert sum(taken) == 26
        points, bags = state.variables()["points"], state.variables()["bags"]
        for p in range(2):
            assert points[p] == taken[p] - 100 * (taken[p] // 10)
            assert bags[p] == taken[p] % 10
        assert any(t >= 10 for t in taken)
        assert sum("reach ten bags and lose 100" in line for line in state.log) == sum(t // 10 for t in taken)


def test_the_match_ends_at_the_target_or_after_the_last_deal() -> None:
    # bidding 3 each is a contract of 6 that random play often makes or sets
    for seed in range(6):
        state = play(game(target=40, deals=5).new_initial_state(seed=seed), seed, bid=lambda player, rng: 3)
        points = state.variables()["points"]
        assert max(points) >= 40 or state.round_number == 5
        if state.round_number < 5:
            assert max(points) >= 40


def test_the_bidding_starts_left_of_the_dealer_and_the_deal_rotates() -> None:
    state = game(deals=3).new_initial_state(seed=1, record_log=True)
    play(state, 1)
    dealers = [int(m.group(1)) for m in (re.match(r"deal \d+ - P(\d) deals", line) for line in state.log) if m]
    assert dealers == [1, 2, 3]
    bidders = [line[:2] for line in state.log if re.match(r"P\d: bids \d+$", line)]
    assert bidders[:4] == ["P2", "P3", "P4", "P1"] and bidders[4:8] == ["P3", "P4", "P1", "P2"]


def test_openspiel_sees_a_zero_sum_game_with_the_declared_bounds() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from rulesengine.adapters.openspiel import register

    spiel = pyspiel.load_game(register(FILE, options={"deals": 2}))
    assert spiel.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (spiel.min_utility(), spiel.max_utility(), spiel.utility_sum()) == (-780.0, 780.0, 0.0)


def test_a_replay_of_a_match_with_numeric_returns_verifies() -> None:
    from rulesengine import replay

    state = play(game(deals=1).new_initial_state(seed=9), 9)
    data = replay.record(state, str(FILE))
    assert data["result"]["returns"] == state.returns() and any(abs(r) > 1 for r in state.returns())
    assert replay.verify(data).returns() == state.returns()


def test_pettingzoo_rewards_are_the_partnership_leads() -> None:
    pytest.importorskip("pettingzoo")
    from rulesengine.adapters.pettingzoo import env

    aec = env(FILE, options={"deals": 1})
    aec.reset(seed=3)
    rng = random.Random(3)
    final = {}
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, _ = aec.last()
        if termination or truncation:
            final[agent] = reward
            action = None
        else:
            mask = observation["action_mask"]
            action = rng.choice([a for a in range(len(mask)) if mask[a]])
        aec.step(action)
    lead = aec.state.returns()[0]
    assert final == {"player_0": lead, "player_1": -lead, "player_2": lead, "player_3": -lead}


def test_a_resampled_state_keeps_the_public_team_values() -> None:
    state = game(deals=1).new_initial_state(seed=4)
    play_until = 30
    rng = random.Random(4)
    while state.steps < play_until:
        state.apply_action(rng.choice(state.legal_actions()))
    for player in range(4):
        sample = state.resample(player, random.Random(player))
        assert sample.variables() == state.variables()
        assert zone(sample, "hand", player) == zone(state, "hand", player)
        for team in range(2):
            assert zone(sample, "won", team) == zone(state, "won", team)
