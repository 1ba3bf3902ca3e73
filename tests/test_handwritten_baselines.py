"""The hand-written speed baselines: matches end, count decisions, follow the seed."""

from __future__ import annotations

import itertools
import random
import statistics
from types import ModuleType

import pytest

from benchmarks.handwritten import padan, padvinderspel, pan

PAN_VARIANTS = [
    {"reversed_spades": spades, "triples": triples, "fours": fours}
    for spades, triples, fours in itertools.product((False, True), pan.TRIPLES, pan.FOURS)
]

CASES: list[tuple[ModuleType, int, dict]] = [
    *[(pan, players, {}) for players in (2, 3, 4)],
    # A one-letter word ends the match at the first letter: every variant stays quick.
    *[(pan, players, {"word": "P", **variant}) for players in (2, 3, 4) for variant in PAN_VARIANTS],
    (padan, 2, {}),
    (padan, 2, {"target": 30}),
    *[(padvinderspel, players, {"attach": attach}) for players in range(2, 7) for attach in padvinderspel.ATTACH],
    (padvinderspel, 4, {"target": 40}),
]


def case_id(case: tuple[ModuleType, int, dict]) -> str:
    game, players, options = case
    return "-".join(
        [
            game.__name__.rsplit(".", 1)[-1],
            f"{players}p",
            *(f"{k}={v}" for k, v in options.items()),
        ]
    )


@pytest.mark.parametrize("game, players, options", CASES, ids=[case_id(case) for case in CASES])
def test_match_ends_and_is_fixed_by_its_seed(game: ModuleType, players: int, options: dict) -> None:
    count = game.play_match(players, 11, **options)
    assert isinstance(count, int) and count > 0
    assert game.play_match(players, 11, **options) == count


@pytest.mark.parametrize("game, players", [(pan, 3), (padan, 2), (padvinderspel, 3)])
def test_the_seed_drives_the_match(game: ModuleType, players: int) -> None:
    assert len({game.play_match(players, seed) for seed in range(5)}) > 1


@pytest.mark.parametrize(
    "game, players, options",
    [
        (pan, 1, {}),
        (pan, 5, {}),
        (pan, 3, {"triples": "any"}),
        (pan, 3, {"jokers": True}),
        (padan, 3, {}),
        (padvinderspel, 7, {}),
        (padvinderspel, 3, {"attach": "lower_only"}),
    ],
)
def test_unsupported_players_or_options_are_refused(game: ModuleType, players: int, options: dict) -> None:
    with pytest.raises(ValueError):
        game.play_match(players, 0, **options)


def test_pan_offers_sets_and_a_pick_up_of_at_most_three() -> None:
    kings = [(13, suit) for suit in range(4)]
    pile = [pan.NINE_OF_HEARTS, (10, pan.CLUBS), (13, pan.HEARTS)]
    hand = kings[1:] + [(9, pan.SPADES)]
    moves = pan.legal_moves(hand, pile, "equal", "higher")
    assert set(moves) == {(card,) for card in kings[1:]} | {
        tuple(kings[1:]),
        pan.PICK_UP,
    }
    pan.apply_move(hand, pile, pan.PICK_UP)
    assert pile == [pan.NINE_OF_HEARTS] and len(hand) == 6
    # Four kings on a queen: "equal" allows no triple, the four (higher) and the pick-up.
    moves = pan.legal_moves(kings, [pan.NINE_OF_HEARTS, (12, 0)], "equal", "higher")
    assert len(moves) == 4 + 1 + 1
    # On the lone 9 of hearts: four triples under "equal_or_higher", and no pick-up.
    moves = pan.legal_moves(kings, pile, "equal_or_higher", "equal_or_higher")
    assert len(moves) == 4 + 4 + 1


def test_padan_trick_goes_to_the_highest_trump_else_the_led_suit() -> None:
    trump = padan.SPADES
    assert padan.leader_wins((5, padan.HEARTS), (14, padan.CLUBS), trump)
    assert not padan.leader_wins((5, padan.HEARTS), (6, padan.HEARTS), trump)
    assert not padan.leader_wins((14, padan.HEARTS), (3, padan.SPADES), trump)
    assert padan.leader_wins((4, padan.SPADES), (3, padan.SPADES), trump)


def test_padvinderspel_lays_all_only_an_unbroken_reachable_run() -> None:
    card = padvinderspel.card_of
    rows: list = [(4, 6), None, None, None, None]
    below_and_above = [card(0, 3), card(0, 7)]
    assert padvinderspel.can_lay_all(below_and_above, rows, 5, adjacent=True)
    assert not padvinderspel.can_lay_all(below_and_above, rows, 5, adjacent=False)
    assert padvinderspel.can_lay_all([card(0, 7), card(0, 8)], rows, 5, adjacent=False)
    assert not padvinderspel.can_lay_all([card(0, 8)], rows, 5, adjacent=True)
    # An unopened suit must run through the start number (adjacent) or up from it.
    assert padvinderspel.can_lay_all([card(1, 4), card(1, 5), card(1, 6)], rows, 5, adjacent=True)
    assert not padvinderspel.can_lay_all([card(1, 4), card(1, 5)], rows, 5, adjacent=False)


def test_padvinderspel_offers_the_cards_that_attach_then_lay_all_else_a_pass() -> None:
    card = padvinderspel.card_of
    match = padvinderspel.Match(2, random.Random(0), padvinderspel.read_options(2, {}))
    match.hands = [[card(0, 5)], [card(0, 7), card(1, 5), card(2, 9)]]
    match.player = 0
    assert match.legal_actions() == [card(0, 5)]  # the start player opens with any card
    match.apply(card(0, 5))
    assert match.over is False and match.totals == [7 + 5 + 9, 0]  # out at once: the others' cards
    match.hands = [[card(0, 6), card(0, 4), card(3, 5), card(3, 8)], [card(0, 9)]]
    match.player = 0
    match.apply(card(0, 6))  # opens a new round with 6: every other patrol now takes a 6
    assert match.start == 6 and match.rows[0] == (6, 6)
    match.player = 0
    match.hands[0] = [card(0, 5), card(0, 7), card(1, 6), card(3, 8)]
    assert match.legal_actions() == [card(0, 5), card(0, 7), card(1, 6)]
    match.hands[0] = [card(0, 7), card(0, 8)]
    assert match.legal_actions() == [card(0, 7), padvinderspel.LAY_ALL]
    match.hands[0] = [card(0, 7)]
    assert match.legal_actions() == [card(0, 7)]  # one card left: attached, not laid out whole
    match.hands[0] = [card(0, 9)]
    assert match.legal_actions() == [padvinderspel.PASS]


def test_the_benchmark_compares_both_sides_in_alternating_rounds(capsys) -> None:
    from benchmarks import run

    calls: list[str] = []
    ticks = itertools.count()  # a clock that advances one second per reading

    def side(name: str, decisions: int) -> run.Playouts:
        def play(seed: int) -> int:
            calls.append(name)
            return decisions

        return run.Playouts(play, clock=lambda: float(next(ticks)))

    found = run.compare(side("engine", 10), side("hand", 40), seconds=3, rounds=3)
    assert found == (10.0, 40.0, 0.25, 0.25, 0.25)
    # The sides take turns: each round plays the engine first, then the hand-written version.
    assert [name for name, _ in itertools.groupby(calls)] == ["engine", "hand"] * 3

    # The median of the rounds' ratios, and their range: one slow round moves the range only.
    engine_decisions = iter([10, 10, 5, 10, 10])
    engine = run.Playouts(lambda seed: next(engine_decisions), clock=lambda: float(next(ticks)))
    found = run.compare(engine, side("hand", 40), seconds=5, rounds=5)
    assert (found.ratio, found.lowest_ratio, found.highest_ratio) == (0.25, 0.125, 0.25)

    run.main(["--game", "pan", "--seconds", "0.02", "--rounds", "1"])
    line = capsys.readouterr().out.splitlines()[-1].split()
    low, high = map(float, line[-1].split("-"))
    assert line[0] == "pan" and low == high == float(line[-2]) > 0


# Decisions per match of the baseline and of the engine: the same rules give the same
# distribution. Whole matches (Pan to a one-letter word); a gap beyond 4.5 standard errors
# means the baseline plays other rules than the ruleset (or the engine does).
AGREEMENT = [
    (pan, "pan", 3, {"word": "P"}, 40),
    (padan, "padan", 2, {}, 60),
    (padvinderspel, "padvinderspel", 4, {}, 150),
]


@pytest.mark.parametrize("game, ruleset, players, options, matches", AGREEMENT, ids=[a[1] for a in AGREEMENT])
def test_the_baseline_plays_the_rulesets_rules(
    game: ModuleType, ruleset: str, players: int, options: dict, matches: int
):
    from benchmarks.run import engine_playouts

    engine = engine_playouts(ruleset, players, options)
    ours = [engine(seed) for seed in range(matches)]
    theirs = [game.play_match(players, seed, **options) for seed in range(matches)]
    error = (statistics.variance(ours) / matches + statistics.variance(theirs) / matches) ** 0.5
    assert abs(statistics.mean(ours) - statistics.mean(theirs)) < 4.5 * error
