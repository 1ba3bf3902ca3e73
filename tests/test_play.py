"""A person playing in the terminal sees only their own observation."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

import rulesengine
from rulesengine.cli import MAX_ANSWER, main
from rulesengine.play import play_against_bots


def test_a_person_plays_a_whole_match_and_never_sees_a_hidden_hand():
    game = rulesengine.make_game("pan", players=3, options={"word": "P"})
    screens = 0

    def ask(state, lines):
        nonlocal screens
        screens += 1
        cards = state.card_locations()
        words = set(" ".join(lines).split())
        assert set(cards["hand[P1]"]) <= words  # the person's own hand is shown
        assert not words & set(cards["hand[P2]"] + cards["hand[P3]"])  # the others' never
        return state.complete_actions()[-1][3]  # the ids of the last whole action offered

    state = play_against_bots(game, 0, 4, ask, lambda line: None)
    assert state.is_terminal() and screens > 0


def test_the_play_command_takes_moves_by_number_and_quits_cleanly():
    runner = CliRunner()
    result = runner.invoke(
        main, ["play", "pan", "--players", "2", "--seed", "3", "-o", "word=P"], input="1\n1\nx\n1\nq\n"
    )
    assert "you are P1" in result.output and "1. lays 9♥" in result.output
    assert "type a number from 1 to" in result.output
    assert result.exit_code == 0 and "you left the match" in result.output  # q is a normal end
    assert "Traceback" not in result.output


def test_the_end_of_the_input_leaves_the_match_as_q_does():
    # piped moves that run out, or Ctrl-D: not an interruption (exit 130 is for Ctrl-C)
    for moves in ("", "1\n", "abc\n", "7" * 1000):  # the last: a long line the input ends in
        result = CliRunner().invoke(main, ["play", "padan", "--seed", "3"], input=moves)
        assert result.exit_code == 0, result.output
        assert result.output.rstrip().endswith("the input ended: you left the match")


def test_a_line_too_long_to_be_a_move_is_refused_and_play_goes_on():
    long_line = "7" * 5000  # past MAX_ANSWER: refused whole, not read as a number
    result = CliRunner().invoke(
        main, ["play", "pan", "--players", "2", "--seed", "3", "-o", "word=P"], input=f"{long_line}\n1\nq\n"
    )
    assert result.exit_code == 0, result.output
    assert f"that line is longer than {MAX_ANSWER} characters" in result.output
    assert result.output.count("your move:") >= 3  # asked again after the long line, then after the move
    assert result.output.rstrip().endswith("you left the match")


def test_input_without_line_breaks_ends_the_match_without_filling_memory():
    # /dev/zero as the input: one endless line. It is read in bounded pieces and given up.
    with open("/dev/zero", "rb") as zeros:
        result = subprocess.run(
            [sys.executable, "-m", "rulesengine", "play", "padan", "--seed", "3"],
            stdin=zeros,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr
    assert "no line break in over a million characters: you left the match" in result.stdout
    assert "Traceback" not in result.stderr


# ---- each seat sees only its own log -------------------------------------------------------

import re  # noqa: E402

import pytest  # noqa: E402

from rulesengine import resources  # noqa: E402

SEATS = [
    (name, seat) for name in resources.shipped_rulesets() for seat in range(rulesengine.make_game(name).num_players)
]


def _named_cards(text: str, names: list[str]) -> set[str]:
    """The card names that appear in `text` as whole words ('3 wolves' is not in '13 wolves')."""
    return {n for n in names if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text)}


def _knowledge(game, seat: int, seed: int, actions: list[int]) -> list[set[str]]:
    """The cards `seat` may name at each of its decisions and at the end, found by replaying
    the match: those seen in its observations so far (a zone it may look into, a card shown
    to it), those named by a move made in the open (a hidden move names its cards to its
    mover only), and those named by the rules' `log` effect (an announcement to all)."""
    names = list(game.program.card_names)
    state = game.new_initial_state(seed, record_log=True)
    known: set[str] = set()
    snapshots: list[set[str]] = []

    def observe(first_line: int, move_line: bool, public: bool) -> None:
        lines = state.log[first_line:]
        if move_line and lines and not public:
            lines = lines[1:]  # the hidden move's own line
        known.update(_named_cards("\n".join(lines), names))
        seen = state.observation(seat)
        for content in seen["zones"].values():
            if isinstance(content, list):
                known.update(content)
        known.update(seen["shown"])

    observe(0, False, True)
    for action in actions:
        mover = state.current_player()
        if mover == seat:
            snapshots.append(set(known))
        public = not game.encoding.block_at(action).move.hidden or mover == seat
        before = len(state.log)
        state.apply_action(action)
        observe(before, True, public)
    snapshots.append(set(known))
    return snapshots


@pytest.mark.parametrize(("name", "seat"), SEATS, ids=[f"{n}-P{s + 1}" for n, s in SEATS])
def test_play_never_prints_a_card_hidden_from_the_seat(name, seat):
    """Every shipped ruleset, played through `play` from every seat (always the first move):
    what is printed before each prompt names only cards the seat knows at that decision."""
    game = rulesengine.make_game(name)
    short = {"word": "P"} if "word" in game.options else {}  # a shorter match of Pan
    game = rulesengine.make_game(name, options=short)
    options = [arg for key, value in short.items() for arg in ("-o", f"{key}={value}")]
    result = CliRunner().invoke(
        main, ["play", name, "--seed", "1", "--seat", str(seat + 1), *options], input="1\n" * 20_000
    )
    assert result.exit_code == 0 and "match over" in result.output, result.output[-500:]
    final = play_against_bots(game, seat, 1, lambda state, _lines: state.complete_actions()[0][3], lambda _line: None)
    snapshots = _knowledge(game, seat, 1, final.actions())
    screens = result.output.split("your move: ")  # the prompt, once a decision
    assert len(screens) == len(snapshots)
    names = list(game.program.card_names)
    for screen, known in zip(screens, snapshots):
        printed = _named_cards(screen, names)
        assert not printed - known, sorted(printed - known)
    assert any(len(known) < len(names) for known in snapshots)  # the check had something to find


HIDDEN_DISCARD = """
name: Hidden discard
players: {min: 2, max: 2}
decks:
  standard: {suits: [hearts, spades], ranks: ["1", "2", "3", "4", "5", "6"], zone: stock}
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  discards: {visibility: nobody}
round:
  setup: [shuffle stock, deal 3 of stock to hand from seat(0)]
phases:
  play: {moves: [discard]}
moves:
  discard:
    params: {card: "hand[me]"}
    hidden: true
    label: "discards {card} face down"
    effects: [move card to discards]
triggers:
  done: {for: p in players, when: "empty(hand[p])", effects: [end round]}
match:
  until: round >= 1
"""


def test_another_players_hidden_move_shows_only_its_name(tmp_path):
    path = tmp_path / "hidden.yaml"
    path.write_text(HIDDEN_DISCARD)
    game = rulesengine.make_game(path)
    state = game.new_initial_state(seed=2, record_log=True)
    first = state.legal_actions()[0]
    label = state.action_to_string(first)
    state.apply_action(first)
    assert state.log_for(0)[-1] == f"P1: {label}" and "face down" in label  # the mover sees its card
    assert state.log_for(1)[-1] == "P1: discard"  # the other player sees only the move
    assert state.log[-1] == f"P1: {label}"  # the full log keeps everything
    for seat in range(2):  # through `play`, the discarded cards never reach the other seat
        result = CliRunner().invoke(main, ["play", str(path), "--seed", "2", "--seat", str(seat + 1)], input="1\n" * 10)
        assert result.exit_code == 0
        bot_lines = [line for line in result.output.splitlines() if line.startswith(f"P{2 - seat}:")]
        assert bot_lines and all(line == f"P{2 - seat}: discard" for line in bot_lines), bot_lines


def test_log_for_needs_a_recorded_log():
    state = rulesengine.make_game("pan").new_initial_state(seed=1)
    with pytest.raises(ValueError, match="record_log"):
        state.log_for(0)
