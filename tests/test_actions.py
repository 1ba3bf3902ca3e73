"""The action ids players see (rulesengine/actions.py): few ids for every shipped game, a
choice of cards made in steps with no dead ends, its picks private to its maker, and
replays from before the encoding still playing."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import replay
from rulesengine.diagnostics import IllegalActionError
from tests.game_checks import file_order_number, play_random
from tests.reference_information import replayed_observations

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rulesets").glob("*.yaml")) + sorted((ROOT / "examples").glob("*.yaml"))
MAX_IDS = 10_000

SMALL = """
rulesengine: 1
name: picks
players: {min: 2, max: 3, default: 2}
decks:
  d:
    suits: {a: {}, b: {}}
    ranks: ["1", "2", "3", "4", "5"]
    zone: stock
cards:
  attributes:
    value: order
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  table: {visibility: all}
round:
  setup:
    - shuffle stock
    - deal 3 of stock to hand from seat(0)
    - move top(stock, 3) to table
phases:
  play:
    moves: [take, lay]
moves:
  take:
    params:
      card: "hand[me]"
      group: {from: table, min: 1, max: 3}
    legal: group.sum(c, c.value) == card.value
    effects:
      - move group to hand[me]
      - move card to table
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to table
triggers:
  over:
    when: players.any(p, empty(hand[p]))
    effects:
      - end round
match:
  until: "true"
  winners: players.filter(p, empty(hand[p]))
"""


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("actions") / "picks.yaml"
    path.write_text(SMALL, encoding="utf-8")
    return path


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_game_has_at_most_ten_thousand_ids(path: Path) -> None:
    ruleset = rulesengine.load_ruleset(path)
    if getattr(ruleset, "min_players", None) is None:
        pytest.skip("a block, not a game")
    for players in {ruleset.min_players, ruleset.max_players}:
        game = rulesengine.make_game(ruleset, players=players)
        assert game.num_distinct_actions <= MAX_IDS
        # the blocks of ids follow one another, one per move, and cover every id once
        offset = 0
        for block in game.encoding.blocks:
            assert block.offset == offset and block.width >= 1
            offset += block.width
        assert offset == game.num_distinct_actions


def test_ladder_and_fishing_shrink_from_the_combinations() -> None:
    ladder = rulesengine.make_game(ROOT / "examples" / "ladder.yaml")
    fishing = rulesengine.make_game(ROOT / "examples" / "fishing.yaml")
    assert ladder.program.num_actions > 100_000 > 1_000 > ladder.num_distinct_actions
    assert fishing.program.num_actions > 50_000 > 1_000 > fishing.num_distinct_actions


def _walk_choice(state, rng: random.Random) -> list[int]:
    """Make one complete decision step by step; every step's ids lead on (no dead end)."""
    player = state.current_player()
    decisions = state.steps
    taken = []
    while True:
        legal = state.legal_actions()
        assert legal, "a partial choice was left with nothing legal"
        assert all(0 <= a < state.game.num_distinct_actions for a in legal)
        action = rng.choice(legal)
        taken.append(action)
        state.apply_action(action)
        if state.steps != decisions or state.is_terminal():
            return taken
        assert state.current_player() == player, "a choice in steps is made by one player"


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), optimize=st.booleans())
def test_a_choice_in_steps_never_ends_in_a_dead_end(small: Path, seed: int, optimize: bool) -> None:
    game = rulesengine.make_game(small, optimize=optimize)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        complete = state.legal_moves()
        before = {(name, values) for name, values in complete}
        taken = _walk_choice(state, rng)
        # the last step named a complete legal action
        move, values = state.game.decode(state.last_action)
        assert (move.name, values) in before
        assert len(taken) == (1 if move.name == "lay" else 2 + len(values[1]))


def test_a_set_is_picked_in_increasing_card_order_then_done(small: Path) -> None:
    game = rulesengine.make_game(small)
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        takes = [(n, v) for n, v in state.legal_moves() if n == "take"]
        if not takes:
            continue
        name, (card, group) = takes[0]
        block = game.encoding.blocks[0]
        steps = game.encoding.steps_of(block.move, (card, group))
        assert steps == tuple(block.offset + i for i in (card, *sorted(group), game.program.num_cards))
        for step in steps[:-1]:
            assert step in state.legal_actions()
            state.apply_action(step)
            assert state.observation(state.current)["choosing"]
        assert game.encoding.blocks[0].offset + game.program.num_cards in state.legal_actions()  # done
        state.apply_action(steps[-1])
        assert state.last_action is not None and state.game.decode(state.last_action)[1] == (card, group)
        return
    pytest.fail("no deal offered a capture")


def test_an_id_no_legal_action_continues_is_refused(small: Path) -> None:
    game = rulesengine.make_game(small)
    state = game.new_initial_state(seed=3)
    illegal = next(a for a in range(game.num_distinct_actions) if a not in state.legal_actions())
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply_action(illegal)
    with pytest.raises(IllegalActionError):
        state.apply_action(game.num_distinct_actions + 5)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_picks_are_seen_by_their_maker_only(small: Path, seed: int) -> None:
    game = rulesengine.make_game(small)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        player = state.current_player()
        other = 1 - player
        other_key = state.information_state_key(other)
        own_keys = {state.information_state_key(player)}
        decisions = state.steps
        while state.steps == decisions and not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            if state.steps == decisions:
                # the maker's key tells each partial pick apart (perfect recall); the other's does not move
                key = state.information_state_key(player)
                assert key not in own_keys
                own_keys.add(key)
                assert state.information_state_key(other) == other_key
                assert "choosing" not in state.observation(other)
                assert state.information_state(player)[-1] == state.observation(player)
    for player in range(game.num_players):
        assert state.information_state(player) == replayed_observations(state, player)


def test_two_choices_differing_only_in_size_look_alike_to_the_other_player(small: Path) -> None:
    """The number of steps a choice took is not observed by the other players."""
    game = rulesengine.make_game(small)
    for seed in range(200):
        state = game.new_initial_state(seed=seed)
        takes = [v for n, v in state.legal_moves() if n == "take"]
        sizes = {len(group) for _card, group in takes}
        if len(sizes) < 2:
            continue
        keys = set()
        for card, group in takes:
            twin = state.clone()
            for step in game.encoding.steps_of(game.encoding.blocks[0].move, (card, group)):
                twin.apply_action(step)
            keys.add((len(twin.information_state(1 - state.current)), tuple(sorted(map(str, group)))))
        assert len({length for length, _ in keys}) == 1
        return
    pytest.skip("no deal offered captures of two sizes")


def test_resampling_replays_choices_made_in_steps() -> None:
    game = rulesengine.make_game(ROOT / "examples" / "ladder.yaml", players=3)
    state = game.new_initial_state(seed=4)
    play_random(state, 4, max_steps=60)
    if state.is_terminal():
        pytest.skip("the match ended early")
    sample = state.resample(state.current_player(), random.Random(1))
    assert sample.legal_actions() == state.legal_actions() or sample.current_player() == state.current_player()


def _old_replay(path: Path, state) -> dict:
    """A version 2 replay of `state`'s match: its actions named as complete actions."""
    keys = []
    names = []
    steps = state.game.new_initial_state(state.seed)
    pending: list[int] = []
    for action in state.actions():
        before = steps.clone()
        steps.apply_action(action)
        pending.append(action)
        if steps._pending:
            continue
        key = steps.last_action if not before.is_chance_node() else action
        keys.append(file_order_number(state.game, key) if not before.is_chance_node() else action)
        move, values = before.decode_key(key)
        names.append(before._label(move, before.current, values))
        pending = []
    data = replay.record(state, str(path), ROOT / "examples" / "replay.json")
    data.update(version=2, actions=keys, action_names=names)
    return data


def test_a_version_2_replay_of_complete_actions_still_plays(tmp_path: Path) -> None:
    game = rulesengine.make_game(ROOT / "examples" / "ladder.yaml", players=3, options={"deals": 1})
    state = game.new_initial_state(seed=9)
    play_random(state, 9)
    path = ROOT / "examples" / "ladder.yaml"
    data = _old_replay(path, state)
    assert len(data["actions"]) < len(state.actions())  # the old ids were whole sets
    again = replay.verify(data, ROOT / "examples" / "replay.json")
    assert again.returns() == state.returns()
    data["action_names"][3] = "something else"
    with pytest.raises(replay.ReplayError, match="action 4"):
        replay.verify(data, ROOT / "examples" / "replay.json")
    json.dumps(data)  # still a plain JSON document


def test_a_replay_of_an_unknown_version_names_the_versions(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"format": replay.FORMAT, "version": 99}), encoding="utf-8")
    with pytest.raises(replay.ReplayError, match="version 99 is not supported \\(expected 1 to 3\\)"):
        replay.read(path)


@pytest.mark.parametrize(
    "name", ["pan", "padan", str(ROOT / "examples" / "ladder.yaml"), str(ROOT / "examples" / "fishing.yaml")]
)
def test_a_move_taken_in_one_id_has_its_ids_as_keys(name: str) -> None:
    """The compiler numbers the complete actions of a move taken in one id as its ids, and
    those of the moves chosen in steps after every id; the reference mode numbers them in file
    order. Both offer the same ids."""
    ruleset = rulesengine.load_ruleset(name)
    players = ruleset.min_players
    fast = rulesengine.make_game(name, players=players)
    reference = rulesengine.make_game(name, players=players, optimize=False)
    ids = fast.num_distinct_actions
    for block in fast.encoding.blocks:
        if block.stepwise:
            assert block.move.offset >= ids
        else:
            assert block.move.offset == block.offset and block.move.width == block.width
    assert fast.encoding.own_ids == ids  # every key below the number of ids is its id
    start = 0
    for move in reference.program.moves:  # file order
        assert move.offset == start
        start += move.width
    for seed in range(3):
        a, b = fast.new_initial_state(seed=seed), reference.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not a.is_terminal() and a.steps < 300:
            legal = a.legal_actions()
            assert legal == b.legal_actions() and legal == sorted(set(legal))
            action = rng.choice(legal)
            a.apply_action(action)
            b.apply_action(action)
