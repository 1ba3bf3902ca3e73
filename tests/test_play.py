"""A person playing in the terminal sees only their own observation."""

from __future__ import annotations

from click.testing import CliRunner

import rulesengine
from rulesengine.cli import main
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
        return state.legal_actions()[-1]

    state = play_against_bots(game, 0, 4, ask, lambda line: None)
    assert state.is_terminal() and screens > 0


def test_the_play_command_takes_moves_by_number_and_quits_cleanly():
    runner = CliRunner()
    result = runner.invoke(main, ["play", "pan", "--players", "2", "--seed", "3", "-o", "word=P"],
                           input="1\n1\nx\n1\nq\n")
    assert "you are P1" in result.output and "1. lays 9♥" in result.output
    assert "type a number from 1 to" in result.output
    assert result.exit_code == 0 and "you left the match" in result.output  # q is a normal end
    assert "Traceback" not in result.output
