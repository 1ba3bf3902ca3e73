"""An oracle for the ids of choices made in steps: at every step of random matches, the ids
`legal_actions()` offers are exactly the next steps of the complete legal actions that start
with the picks so far, computed here from the complete actions and the documented encoding
(docs/language.md, "Action ids and choices made in steps") by plain code that shares nothing
with the engine's fast path; and an id nothing continues with is refused, changing nothing.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine.diagnostics import IllegalActionError
from tests.oracle import play_both
from tests.test_actions import SMALL

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rulesets").glob("*.yaml")) + sorted((ROOT / "examples").glob("*.yaml"))

# A set of variable size alone (the empty set is one step: "done"), a player before a set and
# a value after it, and a move taken in one id after two moves chosen in steps.
CORNERS = """
rulesengine: 1
name: corners
players: {min: 2, max: 3, default: 3}
decks:
  d:
    suits: {a: {}, b: {}, c: {}, d: {}}
    ranks: ["1", "2", "3", "4", "5", "6"]
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
    moves: [gather, give, lay]
moves:
  gather:
    params:
      group: {from: table, min: 0, max: 2}
    legal: size(group) < 2 or group.sum(c, c.value) > 4
    effects:
      - move group to hand[me]
      - move top(stock) to table
  give:
    params:
      target: "others(me)"
      pair: {from: "hand[me]", size: 2}
      extra: "range(0, 3)"
    legal: extra < 2 and size(hand[target]) < 6
    effects:
      - move pair to hand[target]
      - move top(stock) to table
  lay:
    params: {card: "hand[me]"}
    effects:
      - move card to table
      - move top(stock) to table
triggers:
  over:
    when: empty(stock)
    effects:
      - end round
match:
  until: "true"
  winners: players.filter(p, empty(hand[p]))
"""

# Sets sharing an attribute, listed by the shortcuts of the generated code: `pair` may come
# from several groups at once, `match` and `trio` keep only cards equal to one value (the one
# group; `match` with a further condition; `trio`'s test and `pair`'s, inside `lay`'s, cannot
# both hold), `quad` is tested as a whole set; and two moves taken in one id follow them, so
# their ids are looked up, alone, together or not at all.
GROUPS = """
rulesengine: 1
name: groups
players: {min: 2, max: 3, default: 2}
decks:
  d:
    suits: {a: {}, b: {}, c: {}, d: {}}
    ranks: ["1", "2", "3", "4", "5"]
    zone: stock
cards:
  attributes:
    value: order
variables:
  wanted: {type: int}
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
round:
  setup:
    - shuffle stock
    - deal 6 of stock to hand from seat(0)
    - move top(stock) to pile
  limit:
    turns: 80
phases:
  play:
    moves: [lay, pair, match, trio, quad, draw, knock]
moves:
  lay:
    params: {card: "hand[me]"}
    legal: card.value >= top(pile).value
    effects:
      - move card to pile
      - wanted = card.value
  pair:
    params:
      cards: {from: "hand[me]", size: 2, same: value}
    legal: cards.all(c, c.value > top(pile).value)
    effects: [move cards to pile]
  match:
    params:
      cards: {from: "hand[me]", size: 2, same: value}
    legal: size(stock) > 2 and cards.all(c, c.value == wanted)
    effects: [move cards to pile]
  trio:
    params:
      cards: {from: "hand[me]", size: 3, same: value}
    legal: cards.all(c, c.value == top(pile).value)
    effects: [move cards to pile]
  quad:
    params:
      cards: {from: "hand[me]", size: 4, same: value}
    legal: cards.any(c, c.suit == "a")
    effects: [move cards to pile]
  draw:
    legal: not empty(stock)
    effects: ["move top(stock) to hand[me]"]
  knock:
    legal: size(hand[me]) % 2 == 0
    effects:
      - wanted = size(hand[me]) % 5 + 1
triggers:
  over:
    when: players.any(p, empty(hand[p]))
    effects: [end round]
match:
  until: "true"
  winners: players.filter(p, empty(hand[p]))
"""

# Two moves taken in one id before one chosen in steps: the legal pairs are often two, whose
# first ids are in order or not (the keys number a pair's cards together, not by its lowest).
SUMS = """
rulesengine: 1
name: sums
players: {min: 2, max: 3, default: 2}
decks:
  d:
    suits: {a: {}, b: {}, c: {}}
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
    - deal 4 of stock to hand from seat(0)
phases:
  play:
    moves: [lay, draw, pair]
moves:
  lay:
    params: {card: "hand[me]"}
    legal: card.value == 4
    effects:
      - move card to table
  draw:
    legal: not empty(stock) and size(hand[me]) < 6
    effects:
      - move top(stock) to hand[me]
  pair:
    params:
      two: {from: "hand[me]", size: 2}
    legal: two.sum(c, c.value) == 4
    effects:
      - move two to table
triggers:
  over:
    when: players.any(p, empty(hand[p]))
    effects: [end round]
match:
  until: "true"
  winners: players.filter(p, empty(hand[p]))
"""


def _stepwise_files() -> list[Path]:
    found = []
    for path in SHIPPED:
        ruleset = rulesengine.load_ruleset(path)
        if getattr(ruleset, "min_players", None) is not None and rulesengine.make_game(ruleset).encoding.stepwise:
            found.append(path)
    return found


STEPWISE_FILES = _stepwise_files()


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("steps")
    together = CORNERS.replace("  play:\n", "  play:\n    simultaneous: true\n")  # the same moves, chosen hidden
    assert together != CORNERS
    files = {"small": SMALL, "corners": CORNERS, "corners-together": together, "groups": GROUPS, "sums": SUMS}
    out = {}
    for name, text in files.items():
        out[name] = folder / f"{name}.yaml"
        out[name].write_text(text, encoding="utf-8")
    return out


# ---- the oracle: plain code from the documented encoding ---------------------------------


def _value_place(param, value) -> int:
    """A value's place among its parameter's candidates (a card: its id)."""
    if param.kind == "card":
        return value
    domain = list(param.domain or ())
    return domain.index(value) if value in domain else len(domain)


def oracle_steps(game, name: str, values: tuple) -> tuple[int, ...]:
    """The ids that make the complete action `name` with `values`, by the documented rules."""
    block = next(b for b in game.encoding.blocks if b.move.name == name)
    params = block.move.params
    if not any(p.kind in ("set", "subset") for p in params):
        place = 0  # one id: the values numbered together, the first parameter varying slowest
        for param, value in zip(params, values):
            place = place * param.domain_size + _value_place(param, value)
        return (block.offset + place,)
    local: list[int] = []
    for param, value in zip(params, values):
        if param.kind in ("set", "subset"):
            local += sorted(value)
            if param.kind == "subset":
                local.append(game.program.num_cards)  # done
        else:
            local.append(_value_place(param, value))
    return tuple(block.offset + i for i in local)


def oracle_ids(state, picked: tuple[int, ...]) -> tuple[list[int], dict[tuple[int, ...], tuple]]:
    """The ids that may come next after `picked`, and every complete legal action by its ids."""
    complete = {oracle_steps(state.game, name, values): (name, values) for name, values in state.legal_moves()}
    k = len(picked)
    ids = sorted({steps[k] for steps in complete if steps[:k] == picked and len(steps) > k})
    return ids, complete


# ---- walking matches ---------------------------------------------------------------------


def _refusals_change_nothing(state, expected: list[int], rng: random.Random) -> None:
    """Ids nothing continues with are refused, and the state is as it was."""
    count = state.game.num_distinct_actions
    outside = [a for a in range(count) if a not in expected]
    for bad in [-1, count, count + 7, *rng.sample(outside, min(2, len(outside)))]:
        history, steps, player = state.history_list(), state.steps, state.current_player()
        with pytest.raises(IllegalActionError, match="not legal"):
            state.apply_action(bad)
        assert state.history_list() == history and state.steps == steps and state.current_player() == player
        assert state.legal_actions() == expected


def _check_step(state, picked: tuple[int, ...], rng: random.Random, refuse: bool) -> dict:
    expected, complete = oracle_ids(state, picked)
    assert expected, "a decision (or a partial choice) with nothing legal"
    assert state.legal_actions() == expected
    assert state.legal_actions() == expected  # asked again: the same
    player = state.current_player()
    assert state.legal_actions(player) == expected
    assert all(state.legal_actions(p) == [] for p in range(state.num_players) if p != player)
    assert state._pending == picked
    if refuse:
        _refusals_change_nothing(state, expected, rng)
    return complete


def _kept_only_at_decisions(state) -> None:
    """The fast paths of `legal_actions` and `apply_action` take a kept list of legal actions
    that is not empty for a decision node: it is kept nowhere else."""
    if state._legal:
        assert not state.is_chance_node() and not state.is_terminal()
        assert state.legal_moves(), "a kept legal list at a decision with nothing legal"


def walk(
    state, rng: random.Random, checked: int, refuse_every: int = 5, branch: bool = True, picked: tuple[int, ...] = ()
) -> int:
    """Play random ids after the picks `picked`, checking every step against the oracle, for
    `checked` ids or to the end; at some partial picks a clone finishes the choice its own way.
    Returns the ids played."""
    played = 0
    together = state.program.phases[state.phase].simultaneous if state.phase >= 0 else False
    while not state.is_terminal() and played < checked:
        if state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
            _kept_only_at_decisions(state)
            continue
        complete = _check_step(state, picked, rng, refuse=played % refuse_every == 0)
        if branch and picked and rng.random() < 0.3:
            other = state.clone()
            walk(other, random.Random(rng.random()), checked=len(max(complete, key=len)), branch=False, picked=picked)
            assert state.legal_actions() == oracle_ids(state, picked)[0]  # the original is untouched
        action = rng.choice(state.legal_actions())
        decisions, player = state.steps, state.current_player()
        done = (*picked, action) in complete
        state.apply_action(action)
        _kept_only_at_decisions(state)
        played += 1
        if state.steps == decisions and not state.is_terminal():
            assert not done and state.current_player() == player
            picked = (*picked, action)
            continue
        assert done, f"the ids {(*picked, action)} ended a choice that is no complete legal action"
        together = state.program.phases[state.phase].simultaneous if state.phase >= 0 else together
        if not together and state.last_action is not None:
            assert state.decode_key(state.last_action)[0].name == complete[(*picked, action)][0]
            assert state.decode_key(state.last_action)[1] == complete[(*picked, action)][1]
        picked = ()
    return played


@pytest.mark.parametrize("path", STEPWISE_FILES, ids=lambda p: p.stem)
@pytest.mark.parametrize("track", [False, True], ids=["untracked", "tracked"])
@pytest.mark.parametrize("chance", [False, True], ids=["seeded", "chance"])
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), skip=st.integers(0, 400))
def test_shipped_games_offer_exactly_the_oracles_ids(
    path: Path, track: bool, chance: bool, seed: int, skip: int
) -> None:
    game = rulesengine.make_game(path)
    state = game.new_initial_state(seed=None if chance else seed, track=track)  # no seed: shuffles are chance nodes
    rng = random.Random(seed)
    picked: tuple[int, ...] = ()
    for _ in range(skip):  # to somewhere in the match (the long games are not checked whole)
        if state.is_terminal():
            break
        action, decisions, chance = rng.choice(state.legal_actions()), state.steps, state.is_chance_node()
        state.apply_action(action)
        picked = (*picked, action) if not chance and state.steps == decisions and not state.is_terminal() else ()
    walk(state, rng, checked=120, picked=picked)


@pytest.mark.parametrize("name", ["small", "corners", "corners-together", "groups", "sums"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.sampled_from([2, 3]), track=st.booleans(), chance=st.booleans())
def test_variable_sets_and_parameters_around_a_set_follow_the_oracle(
    written: dict[str, Path], name: str, seed: int, players: int, track: bool, chance: bool
) -> None:
    game = rulesengine.make_game(written[name], players=players)
    state = game.new_initial_state(seed=None if chance else seed, track=track)
    played = walk(state, random.Random(seed), checked=10_000, refuse_every=2)
    assert state.is_terminal() and played >= state.steps


def test_the_corner_game_reaches_its_corners(written: dict[str, Path]) -> None:
    """The oracle is asked about an empty set chosen in one step, a value after a set, and a
    move taken in one id that follows moves chosen in steps."""
    game = rulesengine.make_game(written["corners"])
    gather, give, lay = game.encoding.blocks
    seen: set[str] = set()
    for seed in range(30):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        picked: tuple[int, ...] = ()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == oracle_ids(state, picked)[0]
            if not picked and gather.offset + gather.width - 1 in legal:
                seen.add("empty set")
            if len(picked) == 3 and picked[0] >= give.offset:
                seen.add("value after a set")
            if not picked and any(a >= lay.offset for a in legal) and any(a < lay.offset for a in legal):
                seen.add("one id after steps")
            action = rng.choice(legal)
            decisions = state.steps
            state.apply_action(action)
            picked = (*picked, action) if state.steps == decisions and not state.is_terminal() else ()
    assert seen == {"empty set", "value after a set", "one id after steps"}


def test_a_choice_interrupted_by_a_refused_id_goes_on(written: dict[str, Path]) -> None:
    """A refused id in the middle of a choice keeps the picks so far; the choice then ends as
    the oracle says."""
    game = rulesengine.make_game(written["corners"])
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        expected, complete = oracle_ids(state, ())
        give = game.encoding.blocks[1]
        longest = [steps for steps in complete if steps[0] >= give.offset and len(steps) == 4]
        if not longest:
            continue
        steps = longest[0]
        state.apply_action(steps[0])
        state.apply_action(steps[1])
        with pytest.raises(IllegalActionError, match="not legal"):
            state.apply_action(steps[0])  # a first id, not a next one
        assert state._pending == steps[:2]
        assert state.legal_actions() == oracle_ids(state, steps[:2])[0]
        state.apply_action(steps[2])
        state.apply_action(steps[3])
        assert state._pending == () and state.steps == 1
        assert state.decode_key(state.last_action)[1] == complete[steps][1]
        return
    pytest.fail("no deal offered a gift")


def test_the_groups_game_reaches_its_corners(written: dict[str, Path]) -> None:
    """Sets from several groups at once, from the one group, tested whole, and the ids of the
    moves taken in one id after them: none, one, both, and a decision ending in a set."""
    game = rulesengine.make_game(written["groups"])
    pair, match, trio, quad, draw, knock = game.encoding.blocks[1:]
    seen: set[str] = set()
    for seed in range(60):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        picked: tuple[int, ...] = ()
        while not state.is_terminal():
            legal = state.legal_actions()
            assert legal == oracle_ids(state, picked)[0]
            if not picked:
                moves = state.legal_moves()
                groups = {values[0][0] % 5 for name, values in moves if name == "pair"}  # cards by rank, then suit
                seen.update({"pair from several groups"} if len(groups) > 1 else ())
                seen.update(name for name, _ in moves if name in ("match", "trio", "quad"))
                tail = [a for a in legal if a >= draw.offset]
                seen.add(f"{len(tail)} after the sets")
                if not tail and any(a >= pair.offset for a in legal):
                    seen.add("a set last")
            action = rng.choice(legal)
            decisions = state.steps
            state.apply_action(action)
            picked = (*picked, action) if state.steps == decisions and not state.is_terminal() else ()
    assert seen >= {"pair from several groups", "match", "trio", "quad", "0 after the sets", "1 after the sets"}
    assert seen >= {"2 after the sets", "a set last"}


@pytest.mark.parametrize("players", [2, 3])
def test_the_groups_game_lists_the_same_sets_as_the_reference_mode(written: dict[str, Path], players: int) -> None:
    fast = rulesengine.make_game(written["groups"], players=players)
    reference = rulesengine.make_game(written["groups"], players=players, optimize=False)
    for seed in range(12):
        assert play_both(fast, reference, seed, choice_seed=seed, max_steps=300) > 0


# ---- the shapes the fast paths tell apart ------------------------------------------------


def _shape(state) -> str:
    """Where a decision's legal keys (no pick made) lie against the first move chosen in steps:
    the cases `legal_actions` handles apart (its general way takes the rest)."""
    encoding = state.game.encoding
    legal = state._legal_ids()
    after = [key for key in legal if key >= encoding.own_ids]
    if not after:
        return "none after"
    if any(key not in encoding.first for key in after):
        return "a key not met before"
    alone = " alone" if len(after) == len(legal) else ""
    if len(after) == 1:
        return "one after" + alone
    if len(after) == 2:
        before, last = (encoding.first[key] for key in after)
        return ("two after" if before < last else "two after, one first id") + alone
    return "more after"


@pytest.mark.parametrize("track", [False, True])
def test_every_shape_of_a_decision_offers_the_oracles_ids(written: dict[str, Path], track: bool) -> None:
    """Each case the fast path of `legal_actions` takes apart meets the oracle, with chance
    nodes and without: keys all below the first move chosen in steps, one or two after them (alone
    or not, two of one move chosen in steps with one first id), more, and keys not met before."""
    seen: dict[str, int] = {}
    for name in ("corners", "groups", "sums"):
        for seed in range(16):
            # a new game, whose keys are all met for the first time in this test
            game = rulesengine.Game(rulesengine.make_game(written[name], players=2 + seed % 2).program)
            state = game.new_initial_state(seed=None if seed % 3 == 0 else seed, track=track)
            rng = random.Random(seed)
            picked: tuple[int, ...] = ()
            while not state.is_terminal():
                if not state.is_chance_node() and not picked:
                    shape = _shape(state)
                    seen[shape] = seen.get(shape, 0) + 1
                    expected = oracle_ids(state, ())[0]
                    assert state.legal_actions() == expected, shape
                    assert state.legal_actions(state.current_player()) == expected, shape
                action, decisions, chance = rng.choice(state.legal_actions()), state.steps, state.is_chance_node()
                state.apply_action(action)
                _kept_only_at_decisions(state)
                picked = (
                    (*picked, action) if not chance and state.steps == decisions and not state.is_terminal() else ()
                )
    wanted = {"none after", "a key not met before", "one after", "one after alone", "two after", "two after alone"}
    assert wanted | {"two after, one first id", "two after, one first id alone", "more after"} <= set(seen), seen


def _lay_ids(game, state) -> tuple[list[int], list[int]]:
    """The ids of `lay` (a move taken in one id, after moves chosen in steps): legal, and not."""
    lay = game.encoding.blocks[-1]
    ids = range(lay.offset, lay.offset + lay.width)
    legal = set(state.legal_actions())
    return [a for a in ids if a in legal], [a for a in ids if a not in legal]


@pytest.mark.parametrize("track", [False, True])
def test_an_id_taken_whole_applies_its_action_or_is_refused(written: dict[str, Path], track: bool) -> None:
    """At a decision with no pick made, an id of a move taken in one id applies that move (the
    same state as the one its key gives through the general way); one not legal is refused and
    changes nothing; during a choice in steps the same id is a step, refused if nothing goes on
    with it."""
    game = rulesengine.make_game(written["corners"])
    gather, give, lay = game.encoding.blocks
    met = 0
    for seed in range(40):
        state = game.new_initial_state(seed=seed, track=track)
        legal, illegal = _lay_ids(game, state)
        if not legal:
            continue
        action = legal[0]
        card = action - lay.offset  # lay's one parameter: a card, its id
        general = state.clone(track=track)
        state.apply_action(action)
        assert state.decode_key(state.last_action) == (lay.move, (card,))
        assert state.history_list() == [(action, False)] and state.steps == 1
        general._apply_player_action(action)  # the general way: the id's key looked up, then applied
        assert (
            state.zones == general.zones
            and state.current == general.current
            and state.history_list() == general.history_list()
        )
        assert state.legal_actions() == general.legal_actions()
        if track:
            for player in range(state.num_players):
                assert state.information_state_key(player) == general.information_state_key(player)
                assert state.observation(player) == general.observation(player)
        # an id of the same move that is not legal: refused, nothing changed
        before = state.clone(track=track)
        _legal, illegal = _lay_ids(game, state)
        with pytest.raises(IllegalActionError, match="not legal"):
            state.apply_action(illegal[0])
        assert (
            state.history_list() == before.history_list()
            and state.zones == before.zones
            and state.steps == before.steps
        )
        # during a choice in steps, a legal id of `lay` is no step of it
        firsts = [a for a in state.legal_actions() if give.offset <= a < lay.offset]
        legal, _illegal = _lay_ids(game, state)
        if not firsts or not legal:
            continue
        state.apply_action(firsts[0])
        pending, history = state._pending, state.history_list()
        with pytest.raises(IllegalActionError, match="not legal"):
            state.apply_action(legal[0])
        assert state._pending == pending == (firsts[0],) and state.history_list() == history
        met += 1
    assert met >= 3
