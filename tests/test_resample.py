"""Resampling: states a player cannot tell from the true one, uniform over the consistent deals."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine.resample import Resampler, _classes
from tests.test_knowledge import GAMES, TINY, game_of, step_randomly

# chi-square critical values at the 0.1 % level, by degrees of freedom
CRITICAL = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32}


def zones_of(state) -> tuple:
    return tuple(map(tuple, state.zones))


@pytest.mark.parametrize("name,players", GAMES, ids=lambda v: Path(str(v)).stem if v else "")
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000), seeded=st.booleans(), length=st.integers(0, 80))
def test_a_resample_looks_the_same_to_the_player(name, players, seed, seeded, length):
    game = game_of(name, players)
    rng = random.Random(seed)
    state = game.new_initial_state(seed if seeded else None)
    for _ in range(length):
        if state.is_terminal():
            break
        step_randomly(state, rng)
    player = seed % game.num_players
    key = state.information_state_key(player)
    resampler = Resampler(state, player)
    for _ in range(3):
        sample = resampler.sample(rng)
        assert sample.information_state_key(player) == key
        assert sample.observation(player) == state.observation(player)
        assert sample.information_state(player) == state.information_state(player)
        assert sorted(c for zone in sample.zones for c in zone) == list(range(game.program.num_cards))
        known = state.knowledge(player)
        where = {name: sample.program.zone_names[sample.where[c]] for c, name in enumerate(game.program.card_names)}
        assert all(where[card] == zone for card, zone in known.items() if zone is not None)
        if not sample.is_terminal():  # a sample can be played on
            step_randomly(sample, rng)


def test_a_resample_at_a_shuffle_after_a_move_shows_the_last_move_as_the_player_saw_it():
    # the cards of the last move may be shuffled again: a sample may redraw them, but not
    # rename the move the player saw last (relabeling the current state once did)
    game = rulesengine.make_game("padan", options={"target": 5})
    checked = 0
    for seed in range(60):
        state, rng = game.new_initial_state(), random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node() and state.last_action is not None:
                for player in range(game.num_players):
                    sample = state.resample(player, random.Random(seed))
                    assert sample.observation(player) == state.observation(player)
                    assert sample.information_state_key(player) == state.information_state_key(player)
                checked += 1
            step_randomly(state, rng)
        if checked >= 6:
            break
    assert checked >= 6


def test_a_resample_redistributes_unseen_cards():
    game = rulesengine.make_game("pan", players=3)
    state = game.new_initial_state(seed=3)
    resampler = Resampler(state, 0)
    assert len(resampler.unseen) == game.program.num_cards - len(state.zones[1])  # all but P1's hand
    rng = random.Random(1)
    hands = {tuple(sorted(resampler.sample(rng).zones[2])) for _ in range(10)}  # P2's hand
    assert len(hands) > 1
    assert all(resampler.sample(rng).zones[1] == state.zones[1] for _ in range(3))  # P1's own hand stays


def tiny_state():
    """P1 holds 1b 2b, P2 1r 2r, the stock 3r 3b; P1 lays 1b (so P1 held no red card)."""
    game = rulesengine.make_game(TINY)
    state = game.new_initial_state()
    for card in (2, 5, 1, 4, 0):
        state.apply_action(card)
    assert state.observation(0)["zones"]["hand[P1]"] == ["1b", "2b"]
    lay = [a for a in state.legal_actions() if state.action_to_string(a) == "lay 1b"][0]
    state.apply_action(lay)
    return game, state, lay


def consistent_deals(game, state, lay, player):
    """Every deal, played with the same actions, that `player` cannot tell from `state`."""
    key = state.information_state_key(player)
    found = set()
    for order in itertools.permutations(range(game.program.num_cards)):
        other = game.new_initial_state()
        for card in order[:-1]:
            other.apply_action(card)
        if lay not in other.legal_actions():
            continue
        other.apply_action(lay)
        if other.information_state_key(player) == key:
            found.add(zones_of(other))
    return found


def test_resampled_deals_are_uniform_over_the_consistent_deals():
    game, state, lay = tiny_state()
    consistent = consistent_deals(game, state, lay, 1)
    assert len(consistent) == 4  # P1 keeps 2b or 3b (no red: it laid black), the stock in either order
    resampler = Resampler(state, 1)
    rng = random.Random(7)
    draws = 2000
    counts = Counter(zones_of(resampler.sample(rng)) for _ in range(draws))
    assert set(counts) == consistent
    assert resampler.fallbacks == 0 and resampler.rejections > 0  # deals with a red card for P1 are refused
    expected = draws / len(consistent)
    chi2 = sum((counts[deal] - expected) ** 2 / expected for deal in consistent)
    assert chi2 < CRITICAL[len(consistent) - 1]


def test_walked_samples_are_uniform_over_the_consistent_deals():
    """Once every fresh draw is refused, the samples walk from the last one accepted: they stay
    on the consistent deals and uniform over them (never the true deal alone)."""
    game, state, lay = tiny_state()
    consistent = consistent_deals(game, state, lay, 1)
    resampler = Resampler(state, 1)
    rng = random.Random(11)
    first = zones_of(resampler.sample(rng))  # a fresh draw, accepted
    resampler.attempts = 0  # from here on, every sample is walked to
    draws = 2000
    counts = Counter(zones_of(resampler.sample(rng)) for _ in range(draws))
    assert first in consistent and set(counts) == consistent
    assert resampler.walks == draws and resampler.fallbacks == 0
    expected = draws / len(consistent)
    chi2 = sum((counts[deal] - expected) ** 2 / expected for deal in consistent)
    assert chi2 < CRITICAL[len(consistent) - 1]


@pytest.mark.parametrize("name,players", GAMES, ids=lambda v: Path(str(v)).stem if v else "")
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000), length=st.integers(1, 60))
def test_a_walked_sample_looks_the_same_to_the_player(name, players, seed, length):
    game = game_of(name, players)
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    for _ in range(length):
        if state.is_terminal():
            break
        step_randomly(state, rng)
    player = seed % game.num_players
    key, seen = state.information_state_key(player), state.information_state(player)
    resampler = Resampler(state, player)
    resampler.sample(rng)
    resampler.attempts = 0  # a walk when a sample was accepted, else the fallback
    walking = resampler._accepted is not None
    for _ in range(3):
        sample = resampler.sample(rng)
        assert sample.information_state_key(player) == key
        assert sample.information_state(player) == seen
        assert sorted(c for zone in sample.zones for c in zone) == list(range(game.program.num_cards))
    if not resampler.classes and not resampler.skip:  # nothing hidden: nothing drawn
        assert (resampler.walks, resampler.fallbacks) == (0, 0)
    else:
        assert (resampler.walks, resampler.fallbacks) == ((3, 0) if walking else (0, 3))


def test_resampling_follows_the_view_of_the_player_asked_for():
    game, state, _lay = tiny_state()
    sample = state.resample(0, random.Random(2))  # P1 sees its own hand: only P2's hand and the stock move
    assert sample.zones[1] == state.zones[1]
    with pytest.raises(rulesengine.EngineError, match="resampled for P1"):
        sample.information_state(1)
    assert sample.information_state_key(1) != state.information_state_key(1)  # a key of the sampled world


def test_an_untracked_state_cannot_be_resampled():
    game = rulesengine.make_game("pan", players=2)
    state = game.new_initial_state(seed=1, track=False)
    with pytest.raises(rulesengine.EngineError, match="track=False"):
        state.resample(0, random.Random(1))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_a_fallback_sample_taken_during_anothers_choice_in_steps_can_be_played_on(seed):
    """The fallback relabels the current state; another player's picks of a choice made in steps
    are hidden from the sampling player and may not fit the redrawn cards, so the sample's
    chooser starts that choice again: the sample looks the same and has legal actions."""
    game = game_of(str(Path(__file__).parent.parent / "examples" / "ladder.yaml"), None)
    rng = random.Random(seed)
    state = game.new_initial_state(None)
    while not state._pending:  # play until some player is in the middle of a choice in steps
        if state.is_terminal():
            state = game.new_initial_state(None)
        step_randomly(state, rng)
    player = (state.current + 1) % game.num_players
    key = state.information_state_key(player)
    resampler = Resampler(state, player, attempts=0)  # the fallback at once
    for _ in range(5):
        sample = resampler.sample(rng)
        assert sample.information_state_key(player) == key
        assert sample.observation(player) == state.observation(player)
        for _ in range(40):
            if sample.is_terminal():
                break
            step_randomly(sample, rng)  # legal actions are never empty before the end
    assert resampler.fallbacks == 5


SHUFFLED_AGAIN = """rulesengine: 1
name: Shuffled again
players: {min: 2, max: 2}
decks:
  standard: {suits: [hearts, spades], ranks: ["2", "3", "4", "5"], zone: stock}
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  table: {visibility: all}
round:
  setup: [shuffle stock, deal 3 of stock to hand from seat(0)]
phases:
  bury:
    moves: [bury]
    until: players.all(p, size(hand[p]) == BURIED)
  play:
    enter: [shuffle stock]
    moves: [lay]
    until: empty(hand[seat(0)]) and empty(hand[seat(1)])
moves:
  bury:
    hidden: true
    params: {card: "hand[me]"}
    effects: [move card to stock]
  lay:
    params: {card: "hand[me]"}
    effects: [move card to table]
match:
  until: round == 1
"""


@pytest.mark.parametrize("buried", [2, 3], ids=["a card buried face down", "nothing buried"])
def test_a_shuffle_of_some_unseen_cards_keeps_them_exchangeable_with_the_others(tmp_path, buried):
    # The deal leaves 5 cards unseen by P1 (P2's hand and the stock). Whether or not P2 buries
    # a card face down, shuffling the stock tells P1 nothing about which of them P2 holds: the
    # samples must give P2 every pair of them, not always its true hand.
    path = tmp_path / "again.yaml"
    path.write_text(SHUFFLED_AGAIN.replace("BURIED", str(buried)), encoding="utf-8")
    game = rulesengine.make_game(str(path))
    state, rng = game.new_initial_state(seed=3), random.Random(3)
    while game.program.phases[state.phase].name != "play":
        state.apply_action(rng.choice(state.legal_actions()))
    player = state.current_player()
    other = state.zones[game.program.zone_names.index(f"hand[P{2 - player}]")]
    unseen = sorted(other + state.zones[game.program.zone_names.index("stock")])
    resampler = Resampler(state, player)
    hands = Counter(
        frozenset(resampler.sample(rng).zones[game.program.zone_names.index(f"hand[P{2 - player}]")])
        for _ in range(600)
    )
    pairs = {frozenset(pair) for pair in itertools.combinations(unseen, len(other))}
    assert set(hands) == pairs  # every hand P2 may hold, P1's view being the same in all
    assert resampler.fallbacks == 0


def test_the_card_the_move_ending_a_round_named_is_redrawn_like_the_other_unseen_cards():
    """The move that ends a round names its card; the next round's shuffle, run in the same
    step, then hides it. The player saw the card before the shuffle, not after: a sample must
    not keep it where the true shuffle put it."""
    game = rulesengine.make_game(str(Path(__file__).parent.parent / "examples" / "tutorial-game.yaml"), players=4)
    names = game.program.card_names
    checked = 0
    for seed in range(40):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        while state.round_number < 2 and not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        card = game.decode(state.last_action)[1][0]
        unaware = [p for p in range(4) if state.knowledge(p)[names[card]] is None]
        if not unaware:
            continue
        player, checked = unaware[0], checked + 1
        resampler = Resampler(state, player)
        places = Counter(zones_of_card(resampler.sample(random.Random(k)), card) for k in range(60))
        true_place = zones_of_card(state, card)
        assert places[true_place] < 30, (seed, places)  # uniform over some 40 unseen places, not always the true one
        if checked == 3:
            break
    assert checked == 3


def zones_of_card(state, card: int) -> tuple[int, int]:
    """Where `card` lies: its zone and its place in it."""
    zone = state.where[card]
    return zone, state.zones[zone].index(card)


def test_a_sample_and_its_generator_tell_nothing_of_the_true_deal():
    """Two deals the player cannot tell apart (two unseen cards of one class swapped between the
    opponents' hands) give the same samples for the same generator: an agent that knows its
    generator cannot undo the draw to find the true hands."""
    game = rulesengine.make_game("pan", players=3)
    state = game.new_initial_state(seed=1)
    assert state._checkpoint.steps == state.steps  # just dealt: a sample renames this very deal
    names = game.program.card_names
    seen = state.knowledge(0)
    zones = game.program.zone_names
    hand2 = [c for c in state.zones[zones.index("hand[P2]")] if seen[names[c]] is None]
    hand3 = [c for c in state.zones[zones.index("hand[P3]")] if seen[names[c]] is None]
    a, b = next((x, y) for x in hand2 for y in hand3 if state.origin[x] == state.origin[y])
    twin = state.clone()
    twin._checkpoint = state._checkpoint.clone()
    for deal in (twin, twin._checkpoint):
        for zone in deal.zones:
            zone[:] = [b if c == a else a if c == b else c for c in zone]
        deal.where[a], deal.where[b] = deal.where[b], deal.where[a]
    assert twin.information_state_key(0) == state.information_state_key(0) and zones_of(twin) != zones_of(state)
    for seed in range(5):
        assert zones_of(Resampler(twin, 0).sample(random.Random(seed))) == zones_of(
            Resampler(state, 0).sample(random.Random(seed))
        )


def test_with_nothing_to_replay_the_cards_the_player_lost_track_of_are_still_redrawn():
    # cards identified since the last shuffle and lost since (moved out of sight among others)
    # are not drawn by the replay; the sample renames them in place rather than keep the truth
    game = rulesengine.make_game(str(Path(__file__).parent.parent / "examples" / "sum-capture.yaml"))
    rng = random.Random(0)
    state = game.new_initial_state(None)
    for _ in range(600):
        step_randomly(state, rng)
        resampler = Resampler(state, 0)
        if not resampler.classes and not resampler.skip and _classes(state, 0, state.steps + 1):
            break
    else:
        raise AssertionError("no such position in 600 steps")
    key = state.information_state_key(0)
    samples = [resampler.sample(random.Random(k)) for k in range(20)]
    assert all(sample.information_state_key(0) == key for sample in samples)
    assert any(zones_of(sample) != zones_of(state) for sample in samples)


@pytest.mark.parametrize("attempts", [-1, 2.5, "3", None, True, float("nan"), 10**9])
def test_attempts_out_of_range_or_not_a_whole_number_are_refused(attempts):
    state = rulesengine.make_game("pan", players=3).new_initial_state(seed=1)
    with pytest.raises(rulesengine.EngineError, match="attempts is a whole number from 0 to 10,000"):
        Resampler(state, 0, attempts=attempts)


@pytest.mark.parametrize("rng", [None, 7, "seed", object()])
def test_every_way_to_sample_refuses_what_is_not_a_random_generator(rng):
    from rulesengine.agents import PlayerView

    state = rulesengine.make_game("pan", players=3).new_initial_state(seed=1)
    with pytest.raises(rulesengine.EngineError, match="draws with a random.Random"):
        Resampler(state, 0).sample(rng)
    with pytest.raises(rulesengine.EngineError, match="draws with a random.Random"):
        state.resample(0, rng)
    view = PlayerView(state, 0, random.Random(1))
    for _ in range(2):  # the first sample is the view's own world, the next ones are drawn: both refuse alike
        with pytest.raises(rulesengine.EngineError, match="draws with a random.Random"):
            view.sample(rng)
    if rng is not None:
        with pytest.raises(rulesengine.EngineError, match="draws with a random.Random"):
            PlayerView(state, 0, rng)


def test_a_view_of_an_untracked_state_says_why_it_cannot_sample():
    from rulesengine.agents import PlayerView

    state = rulesengine.make_game("pan", players=3).new_initial_state(seed=1, track=False)
    with pytest.raises(rulesengine.EngineError, match="track=False"):
        PlayerView(state, 0).sample(random.Random(1))


def test_a_state_put_into_a_position_knows_only_what_the_position_shows():
    # four cards moved from P1's hand to P2's: P1 sees its hand shrink, and samples follow the position
    from rulesengine.position import Position, set_position

    game = rulesengine.make_game("pan", players=3)
    state = game.new_initial_state(seed=1)
    names, zone_names = game.program.card_names, game.program.zone_names
    mine, theirs = zone_names.index("hand[P1]"), zone_names.index("hand[P2]")
    zones = [list(cards) for cards in state.zones]
    moved, zones[mine] = zones[mine][:4], zones[mine][4:]
    zones[theirs] += moved
    key_before = state.information_state_key(0)
    set_position(
        state, Position(zones=tuple(map(tuple, zones)), variables=tuple(state.vars), phase=state.phase, current=0)
    )
    assert state.information_state_key(0) != key_before
    assert all(state.knowledge(0)[names[card]] is None for card in moved)  # in P2's hand, unseen now
    sizes = [len(zone) for zone in state.zones]
    for seed in range(5):
        sample = state.resample(0, random.Random(seed))
        assert [len(zone) for zone in sample.zones] == sizes
        assert sample.observation(0) == state.observation(0)
        assert sample.information_state_key(0) == state.information_state_key(0)
    hands = {tuple(sorted(state.resample(0, random.Random(seed)).zones[theirs])) for seed in range(10)}
    assert len(hands) > 1  # the four cards are unseen like the others, not pinned where they lie
