"""Teams and results as numbers: the `teams` section, `team`/`partner`/`teammates`, zones and
variables `per: team`, team results, `match.returns` with a declared sum and bounds, and a
shared win — checked in the compiled and the reference mode alike."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import EngineError
from rulesengine.api import validate_file
from rulesengine.diagnostics import RuleFileError
from tests.game_checks import play_random

BASE = """\
name: Team test
players: {min: PLAYERS, max: PLAYERS}
TEAMS
decks:
  d:
    suits: [a, b]
    ranks: ["1", "2", "3", "4"]
    zone: stock
zones:
  stock: {visibility: all}
  pile: {per: team}
variables:
  score: {type: int, per: team}
  taken: {type: int, per: player}
phases:
  play:
    moves: [take]
    until: empty(stock)
moves:
  take:
    params: {card: stock}
    effects:
      - move card to pile[me]
      - score[me] += card.order
      - taken[me] += 1
MATCH
"""


def write(tmp_path: Path, players: int = 4, teams: str = "teams: [[0, 2], [1, 3]]", match: str = "") -> Path:
    text = BASE.replace("PLAYERS", str(players)).replace("TEAMS", teams)
    text = text.replace("MATCH", "match:\n" + textwrap.indent(textwrap.dedent(match).strip() or "until: true", "  "))
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def both(path: Path, **kwargs) -> list[rulesengine.Game]:
    return [rulesengine.make_game(path, **kwargs), rulesengine.make_game(path, optimize=False, **kwargs)]


def codes(path: Path) -> list[tuple[str, int]]:
    _, problems = validate_file(path)
    return [(p.code, p.span.line) for p in problems]


# ---- the teams section --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("teams", "players", "code"),
    [
        ("teams: [[0, 2], [1, 1]]", 4, "RE260"),  # a seat twice
        ("teams: [[0, 2], [1, 4]]", 4, "RE260"),  # seat 3 left out
        ("teams: [[0, x], [1, 3]]", 4, "RE260"),
        ("teams: [[], [0, 1, 2, 3]]", 4, "RE260"),
        ("teams: partners", 4, "RE260"),
        ("teams: [[0, 2], [1, 3]]", 5, "RE261"),  # the seats do not fit the player count
        ("teams: alternate", 1, "RE261"),
        ("", 4, "RE262"),  # per: team without teams
    ],
)
def test_a_broken_teams_section_is_reported(tmp_path: Path, teams: str, players: int, code: str) -> None:
    found = codes(write(tmp_path, players, teams))
    assert code in [c for c, _ in found], found


@pytest.mark.parametrize("optimize", [True, False])
def test_team_partner_and_teammates(tmp_path: Path, optimize: bool) -> None:
    match = """
    until: true
    returns: "team(me) * 100 + size(teammates(me)) + (10 if partner(partner(me)) == me else 0)"
    """
    path = write(tmp_path, 4, "teams: alternate", match)
    state = rulesengine.make_game(path, optimize=optimize).new_initial_state(seed=1)
    play_random(state, 1)
    assert state.returns() == [11.0, 111.0, 11.0, 111.0]


@pytest.mark.parametrize("optimize", [True, False])
def test_partner_is_nobody_outside_a_team_of_two(tmp_path: Path, optimize: bool) -> None:
    # three players, alternate: P1 and P3 against P2 alone
    match = """
    until: true
    returns: "(1 if partner(me) == partner(partner(me)) else 0) * 10 + size(teammates(me))"
    """
    path = write(tmp_path, 3, "teams: alternate", match)
    state = rulesengine.make_game(path, optimize=optimize).new_initial_state(seed=2)
    play_random(state, 2)
    # P2 has no partner: partner(nobody) is nobody too, so the test holds for P2 only
    assert state.returns() == [1.0, 10.0, 1.0]


@given(seed=st.integers(0, 2**16))
@settings(max_examples=15, deadline=None)
def test_team_variables_and_zones_are_shared_by_the_members(seed: int, tmp_path_factory) -> None:
    path = write(tmp_path_factory.mktemp("t"), 4, "teams: [[0, 3], [1, 2]]", "until: true\nreturns: score[me]")
    for game in both(path):
        state = game.new_initial_state(seed=seed)
        play_random(state, seed)
        variables = state.variables()
        score, taken = variables["score"], variables["taken"]
        assert score[0] == score[3] and score[1] == score[2]
        piles = [state.zones[game.program.families["pile"].base + t] for t in range(2)]
        assert len(piles[0]) == taken[0] + taken[3] and len(piles[1]) == taken[1] + taken[2]
        orders = game.program.attributes["order"]
        assert score[0] == sum(orders[c] for c in piles[0]) and score[1] == sum(orders[c] for c in piles[1])
        assert sum(score[:2]) == 2 * (1 + 2 + 3 + 4)
        assert state.returns() == [float(s) for s in score]


# ---- team results, shared wins --------------------------------------------------------------


@pytest.mark.parametrize("optimize", [True, False])
def test_a_team_wins_together(tmp_path: Path, optimize: bool) -> None:
    path = write(
        tmp_path, 4, "teams: [[0, 2], [1, 3]]", "until: true\nwinners: players.argmax(p, taken[p]).bind(w, [w])"
    )
    state = rulesengine.make_game(path, optimize=optimize).new_initial_state(seed=3)
    play_random(state, 3)
    taken = state.variables()["taken"]
    winner = max(range(4), key=lambda p: (taken[p], -p))
    expected = [1.0 if p % 2 == winner % 2 else -1.0 for p in range(4)]
    assert state.returns() == expected


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize(("tie", "expected"), [("", 0.0), ("tie: draw", 0.0), ("tie: win", 1.0)])
def test_everybody_winning_is_a_draw_or_a_shared_win(tmp_path: Path, optimize: bool, tie: str, expected: float) -> None:
    path = write(tmp_path, 4, "teams: alternate", f"until: true\nwinners: players\n{tie}")
    state = rulesengine.make_game(path, optimize=optimize).new_initial_state(seed=4)
    play_random(state, 4)
    assert state.returns() == [expected] * 4


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize(("tie", "expected"), [("tie: draw", 0.0), ("tie: win", 1.0)])
def test_nobody_losing_is_a_draw_or_a_shared_win(tmp_path: Path, optimize: bool, tie: str, expected: float) -> None:
    path = write(tmp_path, 4, "teams: alternate", f"until: true\nlosers: players.filter(p, taken[p] > 99)\n{tie}")
    state = rulesengine.make_game(path, optimize=optimize).new_initial_state(seed=4)
    play_random(state, 4)
    assert state.returns() == [expected] * 4


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("teams", ["teams: [[0], [1], [2], [3]]", "teams: alternate"])
@pytest.mark.parametrize("key", ["winners", "losers"])
def test_nobody_in_the_list_names_no_player(tmp_path: Path, optimize: bool, teams: str, key: str) -> None:
    """`[holder(top(stock))]` of an empty stock: no winner (or loser), a draw that keeps zero
    sum; it gave every player -1 (or +1) where the game declares the returns add up to 0."""
    path = write(tmp_path, 4, teams, f"until: true\n{key}: '[holder(top(stock))]'")
    game = rulesengine.make_game(path, optimize=optimize)
    state = game.new_initial_state(seed=4)
    play_random(state, 4)
    assert state.is_terminal() and not state.card_locations()["stock"]
    assert state.returns() == [0.0] * 4  # a draw, whatever the sum the game declares


def test_a_shared_win_is_not_zero_sum(tmp_path: Path) -> None:
    draw = rulesengine.make_game(write(tmp_path, 4, "teams: alternate", "until: true\nwinners: players"))
    assert draw.utility.total == 0.0 and (draw.utility.minimum, draw.utility.maximum) == (-1.0, 1.0)
    shared = rulesengine.make_game(write(tmp_path, 4, "teams: alternate", "until: true\nwinners: players\ntie: win"))
    assert shared.utility.total is None


# ---- numeric returns, a declared sum and bounds ---------------------------------------------


@pytest.mark.parametrize("optimize", [True, False])
def test_a_broken_zero_sum_promise_stops_the_match_at_the_declaration(tmp_path: Path, optimize: bool) -> None:
    path = write(tmp_path, 4, "teams: alternate", "until: true\nreturns: score[me]\nzero_sum: true\nmin: 0\nmax: 40")
    game = rulesengine.make_game(path, optimize=optimize)
    with pytest.raises(
        EngineError, match=r"game\.yaml:\d+:\d+: the returns \[\d+, \d+, \d+, \d+\] add up to 40, not 0"
    ):
        play_random(game.new_initial_state(seed=5), 5)


@pytest.mark.parametrize("optimize", [True, False])
def test_a_kept_constant_sum_and_bounds_pass(tmp_path: Path, optimize: bool) -> None:
    match = "until: true\nreturns: score[me]\nconstant_sum: 2 * 20\nmin: 0\nmax: 20"
    game = rulesengine.make_game(write(tmp_path, 4, "teams: alternate", match), optimize=optimize)
    state = game.new_initial_state(seed=6)
    play_random(state, 6)
    assert sum(state.returns()) == 40
    assert (game.utility.minimum, game.utility.maximum, game.utility.total) == (0.0, 20.0, 40.0)


@pytest.mark.parametrize("optimize", [True, False])
def test_a_return_beyond_a_declared_bound_names_it(tmp_path: Path, optimize: bool) -> None:
    path = write(tmp_path, 4, "teams: alternate", "until: true\nreturns: score[me]\nmin: 0\nmax: 5")
    game = rulesengine.make_game(path, optimize=optimize)
    with pytest.raises(EngineError, match=r"game\.yaml:\d+:\d+: P\d ends with the return \d+, beyond match\.max 5"):
        play_random(game.new_initial_state(seed=7), 7)


def test_the_declared_sum_is_checked_with_chance_nodes_too(tmp_path: Path) -> None:
    path = write(tmp_path, 4, "teams: alternate", "until: true\nreturns: score[me]\nzero_sum: true\nmin: 0\nmax: 40")
    text = path.read_text().replace("  play:\n", "  play:\n    enter: [shuffle stock]\n", 1)
    path.write_text(text)
    state = rulesengine.make_game(path).new_initial_state()  # no seed: the shuffle is chance nodes
    with pytest.raises(EngineError, match="add up to 40"):
        play_random(state, 8)


@pytest.mark.parametrize(
    ("match", "code"),
    [
        ("returns: score[me]\nwinners: players", "RE263"),
        ("returns: score[me]\nzero_sum: true\nconstant_sum: 0\nmin: 0\nmax: 1", "RE263"),
        ("winners: players\ntie: maybe", "RE264"),
        ("returns: score[me]\ntie: win\nmin: 0\nmax: 1", "RE263"),
        ("returns: score[me]", "RE265"),
        ("returns: score[me]\nmin: size(stock)\nmax: 1", "RE309"),  # a bound is a constant of the setting
        ("returns: score[me] == 1\nmin: 0\nmax: 1", "RE301"),
    ],
)
def test_a_broken_results_declaration_is_reported(tmp_path: Path, match: str, code: str) -> None:
    found = codes(write(tmp_path, 4, "teams: alternate", "until: true\n" + match))
    assert code in [c for c, _ in found], found


def test_returns_without_bounds_still_run_and_adapters_see_the_integer_range(tmp_path: Path) -> None:
    game = rulesengine.make_game(write(tmp_path, 4, "teams: alternate", "until: true\nreturns: score[me]"))
    assert game.utility.minimum < -1e18 and game.utility.maximum > 1e18 and game.utility.total is None


def test_a_file_with_errors_never_runs(tmp_path: Path) -> None:
    with pytest.raises(RuleFileError):
        rulesengine.make_game(write(tmp_path, 5, "teams: [[0, 2], [1, 3]]"))


# ---- visibility: team ---------------------------------------------------------------------

SHOWN = """\
rulesengine: 1
name: Shown to partners
players: {min: 4, max: 4}
teams: alternate
decks:
  d: {suits: [a, b, c], ranks: ["1", "2", "3", "4"], zone: stock}
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: team}
  pile: {visibility: all}
round:
  setup:
    - shuffle stock
    - deal 3 of stock to hand from seat(0)
phases:
  play:
    moves: [lay]
    until: empty(hand[me])
moves:
  lay:
    params: {card: "hand[me]"}
    effects: [move card to pile]
match:
  until: true
"""


@pytest.mark.parametrize("optimize", [True, False])
def test_a_team_zone_is_seen_by_the_owner_and_the_teammates(tmp_path: Path, optimize: bool) -> None:
    import random

    from rulesengine.adapters.observation import ObservationEncoder

    path = tmp_path / "shown.yaml"
    path.write_text(SHOWN, encoding="utf-8")
    game = rulesengine.make_game(path, optimize=optimize)
    state = game.new_initial_state(seed=3)
    state.apply_action(state.legal_actions()[0])
    encoder = ObservationEncoder(game)
    hands = [game.program.families["hand"].base + p for p in range(4)]
    for player in range(4):
        zones = state.observation(player)["zones"]
        for owner in range(4):
            seen = owner % 2 == player % 2
            assert isinstance(zones[f"hand[P{owner + 1}]"], list) == seen
            assert encoder.may_see(hands[owner], player) == seen

    # What a player knows follows the same rule: a resample keeps the partnership's hands and
    # redeals the others'. (Asked of the compiled game: the reference mode's knowledge model
    # does not yet learn the cards dealt into visible zones, whatever their visibility.)
    state = rulesengine.make_game(path).new_initial_state(seed=3)
    state.apply_action(state.legal_actions()[0])
    for player in range(4):
        moved = False
        for k in range(5):
            sample = state.resample(player, random.Random(k))
            for owner in (player, (player + 2) % 4):
                assert sample.zones[hands[owner]] == state.zones[hands[owner]]
            moved |= any(
                sample.zones[hands[owner]] != state.zones[hands[owner]] for owner in (1 - player % 2, 3 - player % 2)
            )
        assert moved


def test_team_visibility_needs_teams_and_a_player_zone(tmp_path: Path) -> None:
    path = tmp_path / "shown.yaml"
    path.write_text(SHOWN.replace("teams: alternate\n", ""), encoding="utf-8")
    assert "RE262" in [c for c, _ in codes(path)]
    path.write_text(SHOWN.replace("pile: {visibility: all}", "pile: {visibility: team}"), encoding="utf-8")
    assert "RE217" in [c for c, _ in codes(path)]
