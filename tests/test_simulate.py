"""Balance statistics: per-seat results, and the same figures from one process or several."""

from __future__ import annotations

import rulesengine
from rulesengine.simulate import simulate


def test_every_match_is_counted_once_per_seat():
    game = rulesengine.make_game("pan", players=3, options={"word": "P"})
    summary = simulate(game, games=6, seed=4)
    assert summary.games == 6
    for seat in summary.seats:
        assert seat.wins + seat.losses + seat.draws == 6
    assert sum(seat.losses for seat in summary.seats) == 6  # one loser a match
    assert summary.decisions > 0 and summary.mean_decisions == summary.decisions / 6


def test_several_workers_give_the_same_statistics():
    game = rulesengine.make_game("padvinderspel", players=3)
    alone = simulate(game, games=12, seed=7)
    shared = simulate(game, games=12, seed=7, workers=2)
    assert shared.seats == alone.seats
    assert shared.decisions == alone.decisions


def test_progress_reaches_the_number_of_games():
    seen = []
    simulate(rulesengine.make_game("pan", players=2, options={"word": "P"}), games=5, seed=1, progress=seen.append)
    assert seen[-1] == 5 and seen == sorted(seen)
