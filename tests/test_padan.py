"""Padan (revised and original), the trick-taking block and the Knock-out Whist example.

Whole matches with random bots, hypothesis properties checked after every step, and
targeted checks of the rules in seeds/padan.md (clause numbers in the test names).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine.api import validate_file
from rulesengine.cli import main
from rulesengine.diagnostics import RuleFileError
from rulesengine.engine import Game, State

ROOT = Path(__file__).resolve().parent.parent
PADAN = ROOT / "rulesets" / "padan.yaml"
ORIGINAL = ROOT / "rulesets" / "padan-original.yaml"
BLOCK = ROOT / "rulesets" / "blocks" / "tricks.yaml"
WHIST = ROOT / "examples" / "knock-out-whist.yaml"

DECISIONS_PER_DEAL = {"padan": 64, "padan-original": 56}  # 8+2+48+3*2 and 2+42+3*4
FACE_UP_MOVES = ("play card", "discard")  # default action names of the moves that lay a card face up
PROPERTY_SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def padan(**options: object) -> Game:
    return rulesengine.make_game(PADAN, options=options)


def original(**options: object) -> Game:
    return rulesengine.make_game(ORIGINAL, options=options)


def move_name(state: State, action: int) -> str:
    return state.game.decode(action)[0].name


def card_param(state: State, action: int) -> int:
    """The card id chosen by a one-card move."""
    return state.game.decode(action)[1][0]


def suit_of(state: State, card: int) -> str:
    return state.program.suit_names[state.program.attributes["suit"][card]]


def zone(state: State, name: str) -> list[str]:
    return state.card_locations()[name]


def steps(state: State, rng: random.Random) -> Iterator[int]:
    """Play random legal actions to the end, yielding each action before it is applied."""
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        yield action
        state.apply_action(action)


def play_until(state: State, rng: random.Random, done: Callable[[State], bool], limit: int = 5_000) -> State:
    for _ in range(limit):
        if done(state) or state.is_terminal():
            return state
        state.apply_action(rng.choice(state.legal_actions()))
    raise AssertionError("the condition never came true")


# ---- the files are valid ------------------------------------------------------------


@pytest.mark.parametrize("path", [PADAN, ORIGINAL, WHIST, BLOCK], ids=lambda p: p.name)
def test_files_validate_without_problems(path: Path) -> None:
    _, problems = validate_file(path)
    assert problems == []


def test_cli_validates_the_files_and_the_block() -> None:
    result = CliRunner().invoke(main, ["validate", str(PADAN), str(ORIGINAL), str(BLOCK), str(WHIST)])
    assert result.exit_code == 0, result.output
    assert "4 file(s) checked: 0 error(s), 0 warning(s); valid" in result.output


def test_a_block_is_not_a_game_and_does_not_make_its_includer_one() -> None:
    with pytest.raises(RuleFileError) as raised:
        rulesengine.load_ruleset(BLOCK)
    assert [d.code for d in raised.value.diagnostics] == ["RE235"]
    assert rulesengine.load_ruleset(PADAN).name == "Padan"  # includes the block


def test_a_block_reports_syntax_errors_and_unknown_sections(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        "block: true\n"
        "define:\n"
        "  twice(x): x +* 2\n"
        "moves:\n"
        "  lay:\n"
        "    legal: undefined_name_is_fine_here\n"
        "    effects:\n"
        "      - move to pile\n"
        "phasez: {}\n",
        encoding="utf-8",
    )
    _, problems = validate_file(broken)
    lines = sorted((d.span.line, d.code[:3]) for d in problems)
    assert lines == [(3, "RE1"), (8, "RE1"), (9, "RE2")]


# ---- whole matches ------------------------------------------------------------------


@pytest.mark.parametrize(
    "game, name",
    [(padan(), "padan"), (original(), "padan-original"), (original(trump_change=True), "padan-original")],
    ids=["padan", "original", "original-trump-change"],
)
def test_whole_matches_end_with_one_winner_and_fixed_deals(game: Game, name: str) -> None:
    target = game.options["target"]
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        for _ in steps(state, random.Random(seed)):
            pass
        assert not state.truncated
        scores = state.variables()["score"]
        assert max(scores) >= target and scores[0] != scores[1]  # (8.2-8.4)
        winner = scores.index(max(scores))
        assert state.returns() == [1.0 if p == winner else -1.0 for p in range(2)]
        # Nobody was ever skipped: every deal took exactly its number of decisions.
        assert state.steps == DECISIONS_PER_DEAL[name] * state.round_number


@pytest.mark.parametrize("players", [3, 4, 5])
def test_knock_out_whist_ends_with_the_last_player_in(players: int) -> None:
    game = rulesengine.make_game(WHIST, players=players)
    for seed in range(5):
        state = game.new_initial_state(seed=seed)
        for _ in steps(state, random.Random(seed)):
            assert len(state.legal_actions()) > 0
        assert state.round_number <= 7
        assert sorted(state.returns()) == [-1.0] * (players - 1) + [1.0]


def test_cli_run_shows_trump_draft_packets_tricks_scores_and_winner() -> None:
    result = CliRunner().invoke(main, ["run", str(PADAN), "--seed", "3"])
    assert result.exit_code == 0, result.output
    out = result.output
    for text in ("trump is", "keeps the packet", "takes up packet", "wins the trick", "deal 1 ends", "wins the match"):
        assert text in out
    assert "cannot move" not in out


# ---- properties after every step ----------------------------------------------------


def visible_to(state: State, player: int) -> set[str]:
    program = state.program
    return {
        program.zone_names[i]
        for i in range(len(program.zone_names))
        if program.zone_visibility[i] == "all"
        or (program.zone_visibility[i] == "owner" and program.zone_owner[i] == player)
    }


def strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def check_step(state: State, all_cards: Counter) -> None:
    locations = state.card_locations()
    # Conservation: every card lies in exactly one zone.
    assert Counter(card for cards in locations.values() for card in cards) == all_cards
    where = {card: name for name, cards in locations.items() for card in cards}
    for player in range(state.num_players):
        seen = state.observation(player)
        last_move = seen.pop("last_move")
        allowed = {card for card, name in where.items() if name in visible_to(state, player)}
        allowed |= set(seen["shown"])
        named = {word for text in strings(seen) for word in text.split() if word in all_cards}
        assert named <= allowed, f"P{player + 1} sees hidden cards {named - allowed}"
        # The last move may name a card already gone face down (the last trick of a deal
        # is gathered into the stock at once); only a card laid face up may be named.
        named = {word for text in strings(last_move) for word in text.split() if word in all_cards}
        if named:
            assert last_move["move"].startswith(FACE_UP_MOVES), last_move
    if not state.is_terminal():
        assert 0 <= state.current_player() < state.num_players
        assert state.legal_actions(), "the player to move has no legal action"


# Low targets keep each property example to two or three deals.
GAMES = {
    "padan": lambda: padan(target=25),
    "original": lambda: original(target=22),
    "original-trump-change": lambda: original(target=22, trump_change=True),
}


@pytest.mark.parametrize("name", GAMES)
@PROPERTY_SETTINGS
@given(seed=st.integers(0, 100_000), rng=st.randoms(use_true_random=False))
def test_every_step_conserves_cards_hides_cards_and_offers_a_move(name: str, seed: int, rng: random.Random) -> None:
    game = GAMES[name]()
    state = game.new_initial_state(seed=seed)
    all_cards = Counter(card for cards in state.card_locations().values() for card in cards)
    assert sum(all_cards.values()) == 52 and max(all_cards.values()) == 1
    check_step(state, all_cards)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        check_step(state, all_cards)


@pytest.mark.parametrize("name", GAMES)
@PROPERTY_SETTINGS
@given(seed=st.integers(0, 100_000), rng=st.randoms(use_true_random=False))
def test_same_seed_and_actions_give_the_same_match(name: str, seed: int, rng: random.Random) -> None:
    game = GAMES[name]()
    first = game.new_initial_state(seed=seed, record_log=True)
    actions = list(steps(first, rng))
    assert first.is_terminal() and not first.truncated  # termination
    again = game.new_initial_state(seed=seed, record_log=True)
    copy = game.new_initial_state(seed=seed).clone()
    for action in actions:
        again.apply_action(action)
        copy.apply_action(action)
    assert again.log == first.log
    assert again.card_locations() == first.card_locations() == copy.card_locations()
    assert again.returns() == first.returns() == copy.returns()
    assert again.variables() == first.variables()


# ---- targeted rules -----------------------------------------------------------------


def hand(state: State, player: int) -> list[str]:
    return zone(state, f"hand[P{player + 1}]")


def card_id(state: State, name: str) -> int:
    return state.program.card_names.index(name)


def order_of(state: State, card: int) -> int:
    return state.program.attributes["order"][card]


def expected_winner(state: State, laid: list[tuple[int, int]]) -> int:
    """(5.5) the highest trump, else the highest card of the suit led."""
    trump = state.variables()["trump"]
    led = suit_of(state, laid[0][1])
    trumps = [(order_of(state, c), p) for p, c in laid if suit_of(state, c) == trump]
    followers = [(order_of(state, c), p) for p, c in laid if suit_of(state, c) == led]
    return max(trumps or followers)[1]


@pytest.mark.parametrize("make", [padan, original], ids=["padan", "original"])
def test_follow_suit_is_enforced_and_the_trick_goes_to_trump_else_the_led_suit(make: Callable[[], Game]) -> None:
    game = make()
    followed = free = trumped = 0
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        laid: list[tuple[int, int]] = []
        while not state.is_terminal():
            legal = state.legal_actions()
            player = state.current_player()
            if move_name(state, legal[0]) == "play_card" and laid:
                # (5.4) the second player follows the led suit when able, else plays anything
                led = suit_of(state, laid[0][1])
                held = {card_id(state, n) for n in hand(state, player)}
                same = {c for c in held if suit_of(state, c) == led}
                assert {card_param(state, a) for a in legal} == (same or held)
                followed += bool(same)
                free += not same
            action = rng.choice(legal)
            if move_name(state, action) == "play_card":
                laid.append((player, card_param(state, action)))
            if len(laid) == 2:
                winner = expected_winner(state, laid)
                trump = state.variables()["trump"]
                before, deal = state.variables()["tricks"][winner], state.round_number
                state.apply_action(action)
                if state.round_number == deal and not state.is_terminal():  # not the deal's last trick
                    assert state.variables()["trick_winner"] == winner
                    assert state.variables()["tricks"][winner] == before + 1
                    if move_name(state, state.legal_actions()[0]) == "play_card":
                        assert state.current_player() == winner  # (5.6)
                trumped += suit_of(state, laid[1][1]) == trump != suit_of(state, laid[0][1])
                laid = []
            else:
                state.apply_action(action)
    assert followed and free and trumped  # every case was met


def play_draft(state: State, keeper: int) -> list[tuple[int, set[str]]]:
    """`keeper` always keeps, the other always gives; the legal moves at each step."""
    offered = []
    while state.observation(0)["phase"] == "draft":
        legal = state.legal_actions()
        names = {move_name(state, a) for a in legal}
        offered.append((state.current_player(), names))
        wanted = "keep" if state.current_player() == keeper else "give"
        state.apply_action(next((a for a in legal if move_name(state, a) == wanted), legal[0]))
    return offered


def test_a_full_hand_forces_the_draft_choice_4_5() -> None:
    state = padan().new_initial_state(seed=5)
    drafter = state.variables()["first_drafter"]
    other = 1 - drafter
    offered = play_draft(state, keeper=drafter)
    both = {"keep", "give"}
    # drafter keeps 1, other gives (2), keeps 3, gives (4): then the drafter must give
    # and the other, facing a full opponent, must keep (4.5).
    assert offered == [
        (drafter, both),
        (other, both),
        (drafter, both),
        (other, both),
        (drafter, {"give"}),
        (other, {"keep"}),
        (drafter, {"give"}),
        (other, {"keep"}),
    ]
    assert state.observation(0)["zones"]["packets[P1, 4]"] == 6
    assert all(
        state.observation(p)["zones"][f"packets[P{q + 1}, {i}]"] == 6
        for p in (0, 1)
        for q in (0, 1)
        for i in range(1, 5)
    )


def test_the_receiver_remembers_a_given_packet_that_lies_face_down_4_4_4_8() -> None:
    state = padan().new_initial_state(seed=8)
    drafter = state.variables()["first_drafter"]
    receiver = 1 - drafter
    packet = set(hand_zone := zone(state, f"draft[P{drafter + 1}]"))
    assert len(hand_zone) == 6
    give = next(a for a in state.legal_actions() if move_name(state, a) == "give")
    state.apply_action(give)
    assert set(state.observation(receiver)["shown"]) == packet  # looked at once
    assert state.observation(drafter)["shown"] == []
    play_draft(state, keeper=0)
    assert state.observation(0)["phase"] == "pick"
    now = state.observation(receiver)
    assert not packet & {w for text in strings(now) for w in text.split()}
    assert now["zones"][f"packets[P{receiver + 1}, 1]"] == 6  # a count, not cards
    remembered = [set(seen["shown"]) for seen in state.information_state(receiver)]
    assert packet in remembered
    assert packet not in [set(seen["shown"]) for seen in state.information_state(drafter)]


def test_cut_and_alternation_2_3_7_1_7_2() -> None:
    for seed in range(6):
        state = padan().new_initial_state(seed=seed, record_log=True)
        cut = state.log[0]
        drafter = state.variables()["first_drafter"]
        assert state.variables()["first_leader"] == 1 - drafter
        # the cut's two cards, seat 1 first; the lower (rank, then suit 1.4) drafts first
        names = [word.rstrip(",;") for word in cut.split() if word.rstrip(",;") in state.program.card_names]
        ranks = [order_of(state, card_id(state, n)) * 4 + "♣♦♥♠".index(n[-1]) for n in names]
        assert drafter == ranks.index(min(ranks))
        assert state.current_player() == drafter
        assert len(zone(state, "stock")) == 42 and zone(state, "trump_shown")[0].startswith("2")
        rng = random.Random(seed)
        play_until(state, rng, lambda s: s.round_number == 2)
        assert state.variables()["first_drafter"] == 1 - drafter  # (7.1)
        assert state.variables()["first_leader"] == drafter  # (7.2)
        assert state.current_player() == 1 - drafter


def test_pick_up_at_three_cards_and_24_tricks_a_deal_5_7_to_5_10() -> None:
    state = padan().new_initial_state(seed=4)
    rng = random.Random(4)
    pickups = []
    previous_phase = state.observation(0)["phase"]
    while state.round_number == 1:
        phase = state.observation(0)["phase"]
        if phase == "pick" and previous_phase == "play":
            tricks = state.variables()["tricks"]
            assert [len(hand(state, p)) for p in (0, 1)] == [3, 3]
            assert state.current_player() == state.variables()["trick_winner"]  # (5.8)
            pickups.append(sum(tricks))
        if phase == "play" and previous_phase == "pick":
            assert sorted(len(hand(state, p)) for p in (0, 1)) in ([6, 6], [9, 9])
            assert state.current_player() == state.variables()["trick_winner"]  # leads (5.6)
        previous_phase = phase
        state.apply_action(rng.choice(state.legal_actions()))
    assert pickups == [3, 9, 15]  # (5.7, 5.9)
    assert sum(state.variables()["score"]) == 24  # (5.10, 6.2)
    assert zone(state, "trump_deck") + zone(state, "trump_shown") and all(
        not name.startswith("2") for p in (0, 1) for name in zone(state, f"won[P{p + 1}]")
    )  # (1.2) the 2s are never played


def test_original_deals_packets_shows_own_once_and_discards_face_up_9_2_to_9_9() -> None:
    state = original().new_initial_state(seed=2)
    for player in (0, 1):
        own = {c for i in range(1, 5) for c in zone(state, f"packets[P{player + 1}, {i}]")}
        assert set(state.observation(player)["shown"]) == own and len(own) == 24  # (9.3)
    assert state.current_player() == 1  # (9.4) the non-dealer (seat 2) chooses first
    take = [a for a in state.legal_actions() if move_name(state, a) == "take_any"]
    assert len(take) == 8  # any of the eight packets
    rng = random.Random(2)
    discards, hands_at_play = [], []
    while state.round_number == 1:
        action = rng.choice(state.legal_actions())
        phase = state.observation(0)["phase"]
        if move_name(state, action) == "discard":
            name = state.program.card_names[card_param(state, action)]
            state.apply_action(action)
            discards.append(name)
            for player in (0, 1):  # (9.8) both see it face up
                assert name in state.observation(player)["zones"]["discards"]
        else:
            state.apply_action(action)
        if phase == "pick" and state.observation(0)["phase"] == "play":
            hands_at_play.append([len(hand(state, p)) for p in (0, 1)])
    assert hands_at_play == [[6, 6], [8, 8], [8, 8], [8, 8]]  # (9.9) nine cards less a discard
    assert len(discards) == 6
    assert sum(state.variables()["score"]) == 21  # (9.9)
    assert state.variables()["dealer"] == 1  # (9.1) the deal passes


@pytest.mark.parametrize("change", [False, True])
def test_original_trump_change_before_the_third_pick_up_9_11(change: bool) -> None:
    state = original(trump_change=change).new_initial_state(seed=6)
    first = zone(state, "trump_shown")
    rng = random.Random(6)
    play_until(state, rng, lambda s: s.observation(0)["phase"] == "pick" and sum(s.variables()["tricks"]) == 13)
    shown = zone(state, "trump_shown")
    assert len(shown) == (2 if change else 1) and shown[0] == first[0]
    assert state.variables()["trump"] == suit_of(state, card_id(state, shown[-1]))


def test_equal_scores_at_the_target_need_another_deal_8_4() -> None:
    game = padan(target=12)
    state = game.new_initial_state(seed=1, record_log=True)
    rng = random.Random(1)
    play_until(state, rng, lambda s: s.round_number == 2)
    assert state.variables()["score"] == [12, 12] and not state.is_terminal()
    assert "both have 12 points - another deal decides" in state.log
    for _ in steps(state, rng):
        pass
    scores = state.variables()["score"]
    assert scores[0] != scores[1] and state.round_number >= 2
