"""Turn match records into the statistics an author reads (the formulas are in docs/analysis.md)."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Sequence
from typing import Any

from . import stats
from .playout import END_GAME, ENGINE_CAP, ROUND_END_KINDS

HISTOGRAM_BINS = 20
ROUND_LIMIT_WARNING = 0.05  # share of rounds ending at a declared turn limit worth a warning


def _rate(wins: int, trials: int) -> dict[str, Any]:
    low, high = stats.wilson(wins, trials)
    return {"wins": wins, "trials": trials, "rate": wins / trials if trials else 0.0, "ci95": [low, high]}


def histogram(values: Sequence[int], bins: int = HISTOGRAM_BINS) -> dict[str, list]:
    """Equal-width bins over [min, max]: edges (bins + 1 of them) and counts."""
    if not values:
        return {"edges": [], "counts": []}
    low, high = min(values), max(values)
    width = max(1.0, (high - low) / bins) if high > low else 1.0
    count = max(1, min(bins, int((high - low) / width) + 1))
    counts = [0] * count
    for v in values:
        counts[min(count - 1, int((v - low) / width))] += 1
    return {"edges": [low + i * width for i in range(count + 1)], "counts": counts}


class Tally:
    """Every statistic of the analysis, gathered from match records handed over one at a
    time in match order. Only what exact quantiles need is kept per match (its decisions,
    rounds, lead changes and share led for good, and each round's length): a hundred bytes
    or so, where a whole record is a few kilobytes, so that a long run stays small."""

    def __init__(self, program, plan) -> None:
        self.program, self.plan = program, plan
        n = program.num_players
        self.games = 0
        self.wins, self.losses = [0] * n, [0] * n
        self.drawn = 0  # matches whose every return is 0
        self.return_sums = [0.0] * n  # summed in match order, as a list's sum would be
        self.spreads: list[Counter] = [Counter() for _ in range(n)]
        self.decisions, self.rounds, self.round_lengths = array("q"), array("q"), array("q")
        self.lead_changes, self.led_for_good = array("q"), array("d")
        self.match_ends: Counter = Counter()
        self.round_ends: Counter = Counter()
        self.legal_sum = self.legal_max = self.forced = 0
        self.move_legal, self.move_chosen = [0] * len(program.moves), [0] * len(program.moves)
        self.fired = [0] * len(program.triggers)
        self.entered: set[int] = set()
        self.holders: dict[str, list[int]] = {"first mover": [0, 0]}  # role -> [matches held, wins]
        self.agent_seats: dict[str, list[int]] = {}  # agent -> [seats played, wins]

    def add(self, r: dict[str, Any]) -> None:
        """One more match's record (the next in match order)."""
        self.games += 1
        returns = r["returns"]
        # A drawn match is one in which nobody won or lost: every return 0. A seat's 0 alone is
        # not one where the returns are numbers (a player who staked nothing, as others won).
        self.drawn += all(value == 0 for value in returns)
        for seat, value in enumerate(returns):
            self.wins[seat] += value > 0
            self.losses[seat] += value < 0
            self.return_sums[seat] += value
            self.spreads[seat][value] += 1
        self.decisions.append(r["decisions"])
        self.rounds.append(r["rounds"])
        self.round_lengths.extend(r["round_lengths"])
        self.match_ends[r["match_end"]] += 1
        self.round_ends.update(r["round_ends"])
        self.legal_sum += r["legal_sum"]
        self.legal_max = max(self.legal_max, r["legal_max"])
        self.forced += r["forced"]
        for i, (legal, chosen) in enumerate(zip(r["move_legal"], r["move_chosen"])):
            self.move_legal[i] += legal
            self.move_chosen[i] += chosen
        for i, count in enumerate(r["triggers"]):
            self.fired[i] += count
        self.entered.update(r["phases"])
        self.lead_changes.append(_changes(r["leaders"]))
        if r["led_for_good"] is not None:
            self.led_for_good.append(r["led_for_good"])
        n = self.program.num_players
        held = [("first mover", r["first_movers"][0])] if r["first_movers"] else []
        held += [(name, players[0]) for name, players in r["roles"].items() if players and 0 <= players[0] < n]
        for name, player in held:
            counts = self.holders.setdefault(name, [0, 0])
            counts[0] += 1
            counts[1] += returns[player] > 0
        for seat, agent in enumerate(r["agents"]):
            counts = self.agent_seats.setdefault(agent, [0, 0])
            counts[0] += 1
            counts[1] += returns[seat] > 0

    def result(self) -> dict[str, Any]:
        """Every statistic of the matches added so far."""
        program, games = self.program, self.games
        n = program.num_players
        seats = []
        for seat in range(n):
            wins, losses, spread = self.wins[seat], self.losses[seat], self.spreads[seat]
            low, high = stats.wilson(wins, games)
            seats.append(
                {
                    "seat": seat + 1,
                    "wins": wins,
                    "losses": losses,
                    "draws": games - wins - losses,
                    "win_rate": wins / games if games else 0.0,
                    "ci95": [low, high],
                    "mean_return": self.return_sums[seat] / games if games else 0.0,
                    "returns": {_key(v): spread[v] for v in sorted(spread)},
                }
            )
        fairness = stats.chi_square_even(self.wins)
        baseline = sum(self.wins) / (games * n) if games else 0.0
        all_decisions = sum(self.decisions)
        all_rounds = sum(self.round_ends.values())
        moves = [
            {
                "move": move.name,
                "legal": legal,
                "chosen": chosen,
                "legal_share": legal / all_decisions if all_decisions else 0.0,
                "chosen_share": chosen / all_decisions if all_decisions else 0.0,
            }
            for move, legal, chosen in zip(program.moves, self.move_legal, self.move_chosen)
        ]
        fired = self.fired
        result: dict[str, Any] = {
            "games": games,
            "seats": seats,
            "drawn_matches": self.drawn,
            "seat_fairness": None
            if fairness is None
            else {
                "test": "chi-square, wins per seat against an even split",
                "statistic": fairness[0],
                "df": fairness[1],
                "p_value": fairness[2],
            },
            "roles": _roles(self.holders, baseline),
            "length": {
                "decisions": stats.describe(self.decisions),
                "rounds": stats.describe(self.rounds),
                "round_decisions": stats.describe(self.round_lengths),
                "histogram": histogram(self.decisions),
            },
            "endings": {
                "matches": {kind: self.match_ends.get(kind, 0) for kind in ("normal", ENGINE_CAP)},
                "rounds": {kind: self.round_ends.get(kind, 0) for kind in (*ROUND_END_KINDS, END_GAME, ENGINE_CAP)},
            },
            "standing": {
                "source": _standing_source(program, self.plan.standing),
                "lead_changes": stats.describe(self.lead_changes),
                "led_for_good": stats.describe(self.led_for_good),
                "matches_with_a_leader_for_good": len(self.led_for_good),
            },
            "branching": {
                "mean": self.legal_sum / all_decisions if all_decisions else 0.0,
                "max": self.legal_max,
                "forced_share": self.forced / all_decisions if all_decisions else 0.0,
            },
            "moves": moves,
            "coverage": {
                "moves_never_legal": [m["move"] for m in moves if m["legal"] == 0],
                "moves_never_chosen": [m["move"] for m in moves if m["legal"] > 0 and m["chosen"] == 0],
                "triggers_never_fired": [t.name for t, count in zip(program.triggers, fired) if count == 0],
                "trigger_firings": {t.name: count for t, count in zip(program.triggers, fired)},
                "phases_never_entered": [p.name for i, p in enumerate(program.phases) if i not in self.entered],
            },
            "skill": _agents(self.agent_seats),
            "mean_decisions": all_decisions / games if games else 0.0,
            "truncated": self.match_ends.get(ENGINE_CAP, 0),
        }
        result["warnings"] = warnings(result, all_rounds)
        return result


def _key(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _changes(leaders: list[int | None]) -> int:
    """How often the single leader at a round end differs from the previous single leader."""
    changes, last = 0, None
    for leader in leaders:
        if leader is None:
            continue
        if last is not None and leader != last:
            changes += 1
        last = leader
    return changes


def _standing_source(program, standing: str | None) -> str:
    if standing is not None:
        return f"variable {standing.lstrip('-')} ({'lower' if standing.startswith('-') else 'higher'} is better)"
    if program.winners is not None:
        return "match.winners evaluated at each round end"
    if program.losers is not None:
        return "match.losers evaluated at each round end (the only player not among them leads)"
    return "none"


def _roles(holders: dict[str, list[int]], baseline: float) -> list[dict[str, Any]]:
    """Win rate of the player holding each role in the match's first round."""
    out = []
    for name, (held, wins) in holders.items():
        entry = _rate(wins, held)
        sd = (baseline * (1 - baseline) / held) ** 0.5 if held else 0.0
        p_value = stats.normal_two_sided((entry["rate"] - baseline) / sd) if sd > 0 else 1.0
        out.append({"role": name, **entry, "baseline": baseline, "p_value": p_value})
    return out


def _agents(seats: dict[str, list[int]]) -> list[dict[str, Any]] | None:
    if len(seats) < 2:
        return None
    return [{"agent": kind, **_rate(seats[kind][1], seats[kind][0])} for kind in sorted(seats)]


def warnings(result: dict[str, Any], all_rounds: int) -> list[str]:
    """What an author should look at, in words."""
    out = []
    games = result["games"]
    capped = result["endings"]["matches"][ENGINE_CAP]
    if capped:
        out.append(f"{capped} of {games} matches stopped at the engine's decision limit (counted as draws)")
    rounds = result["endings"]["rounds"]
    for kind, words in (("limit", "ended at the declared turn limit"), ("stuck", "ended because nobody could move")):
        if rounds[kind] and all_rounds:
            share = rounds[kind] / all_rounds
            if share >= ROUND_LIMIT_WARNING:
                out.append(f"{rounds[kind]} of {all_rounds} rounds ({share:.1%}) {words}")
    fairness = result["seat_fairness"]
    if fairness is not None and fairness["p_value"] < 0.01:
        out.append(f"seat win rates differ more than chance explains (chi-square p = {fairness['p_value']:.2g})")
    coverage = result["coverage"]
    if not games:  # stopped before any match ended: nothing was seen, so nothing is missing
        return out
    for move in coverage["moves_never_legal"]:
        out.append(f"move {move} was never legal")
    for trigger in coverage["triggers_never_fired"]:
        out.append(f"trigger {trigger} never fired")
    for phase in coverage["phases_never_entered"]:
        out.append(f"phase {phase} was never entered")
    for option in coverage.get("options_without_effect", []):
        out.append(f"option {option['option']}={option['tried']} changed nothing in {option['matches']} matches")
    return out
