"""Turn match records into the statistics an author reads (the formulas are in docs/analysis.md)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import stats
from .playout import END_GAME, ENGINE_CAP, ROUND_END_KINDS

HISTOGRAM_BINS = 20
ROUND_LIMIT_WARNING = 0.05  # share of rounds ending at a declared turn limit worth a warning


def _rate(wins: int, trials: int) -> dict[str, Any]:
    low, high = stats.wilson(wins, trials)
    return {"wins": wins, "trials": trials, "rate": wins / trials if trials else 0.0, "ci95": [low, high]}


def histogram(values: list[int], bins: int = HISTOGRAM_BINS) -> dict[str, list]:
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


def aggregate(records: list[dict[str, Any]], program, plan) -> dict[str, Any]:
    """Every statistic of the analysis over `records` (matches in order)."""
    n = program.num_players
    games = len(records)
    seats = []
    for seat in range(n):
        values = [r["returns"][seat] for r in records]
        wins = sum(v > 0 for v in values)
        losses = sum(v < 0 for v in values)
        low, high = stats.wilson(wins, games)
        spread = Counter(values)
        seats.append(
            {
                "seat": seat + 1,
                "wins": wins,
                "losses": losses,
                "draws": games - wins - losses,
                "win_rate": wins / games if games else 0.0,
                "ci95": [low, high],
                "mean_return": sum(values) / games if games else 0.0,
                "returns": {_key(v): spread[v] for v in sorted(spread)},
            }
        )
    fairness = stats.chi_square_even([s["wins"] for s in seats])
    total_wins = sum(s["wins"] for s in seats)
    baseline = total_wins / (games * n) if games else 0.0

    decisions = [r["decisions"] for r in records]
    rounds = [r["rounds"] for r in records]
    round_lengths = [length for r in records for length in r["round_lengths"]]
    match_ends = Counter(r["match_end"] for r in records)
    round_ends = Counter(kind for r in records for kind in r["round_ends"])
    all_rounds = sum(round_ends.values())

    legal_sum = sum(r["legal_sum"] for r in records)
    all_decisions = sum(decisions)
    moves = []
    for i, move in enumerate(program.moves):
        legal = sum(r["move_legal"][i] for r in records)
        chosen = sum(r["move_chosen"][i] for r in records)
        moves.append(
            {
                "move": move.name,
                "legal": legal,
                "chosen": chosen,
                "legal_share": legal / all_decisions if all_decisions else 0.0,
                "chosen_share": chosen / all_decisions if all_decisions else 0.0,
            }
        )

    traced = [r for r in records if r["triggers"] is not None]
    fired = [sum(r["triggers"][i] for r in traced) for i in range(len(program.triggers))]
    entered = set().union(*(r["phases"] for r in records)) if records else set()

    lead_changes = [_changes(r["leaders"]) for r in records]
    decided = [r["led_for_good"] for r in records if r["led_for_good"] is not None]
    result: dict[str, Any] = {
        "games": games,
        "seats": seats,
        "seat_fairness": None
        if fairness is None
        else {
            "test": "chi-square, wins per seat against an even split",
            "statistic": fairness[0],
            "df": fairness[1],
            "p_value": fairness[2],
        },
        "roles": _roles(records, n, baseline),
        "length": {
            "decisions": stats.describe(decisions),
            "rounds": stats.describe(rounds),
            "round_decisions": stats.describe(round_lengths),
            "histogram": histogram(decisions),
        },
        "endings": {
            "matches": {kind: match_ends.get(kind, 0) for kind in ("normal", ENGINE_CAP)},
            "rounds": {kind: round_ends.get(kind, 0) for kind in (*ROUND_END_KINDS, END_GAME, ENGINE_CAP)},
        },
        "standing": {
            "source": _standing_source(program, plan.standing),
            "lead_changes": stats.describe(lead_changes),
            "led_for_good": stats.describe(decided),
            "matches_with_a_leader_for_good": len(decided),
        },
        "branching": {
            "mean": legal_sum / all_decisions if all_decisions else 0.0,
            "max": max((r["legal_max"] for r in records), default=0),
            "forced_share": sum(r["forced"] for r in records) / all_decisions if all_decisions else 0.0,
        },
        "moves": moves,
        "coverage": {
            "moves_never_legal": [m["move"] for m in moves if m["legal"] == 0],
            "moves_never_chosen": [m["move"] for m in moves if m["legal"] > 0 and m["chosen"] == 0],
            "triggers_never_fired": [t.name for t, count in zip(program.triggers, fired) if count == 0]
            if traced
            else [],
            "trigger_firings": {t.name: count for t, count in zip(program.triggers, fired)},
            "trigger_sample": len(traced),
            "phases_never_entered": [p.name for i, p in enumerate(program.phases) if i not in entered],
        },
        "skill": _agents(records, n),
        "mean_decisions": all_decisions / games if games else 0.0,
        "truncated": match_ends.get(ENGINE_CAP, 0),
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


def _roles(records: list[dict[str, Any]], n: int, baseline: float) -> list[dict[str, Any]]:
    """Win rate of the player holding each role in the match's first round."""
    holders: dict[str, list[tuple[int, bool]]] = {"first mover": []}
    for r in records:
        if r["first_movers"]:
            player = r["first_movers"][0]
            holders["first mover"].append((player, r["returns"][player] > 0))
        for name, held in r["roles"].items():
            if held and 0 <= held[0] < n:
                holders.setdefault(name, []).append((held[0], r["returns"][held[0]] > 0))
    out = []
    for name, pairs in holders.items():
        wins = sum(won for _, won in pairs)
        entry = _rate(wins, len(pairs))
        sd = (baseline * (1 - baseline) / len(pairs)) ** 0.5 if pairs else 0.0
        p_value = stats.normal_two_sided((entry["rate"] - baseline) / sd) if sd > 0 else 1.0
        out.append({"role": name, **entry, "baseline": baseline, "p_value": p_value})
    return out


def _agents(records: list[dict[str, Any]], n: int) -> list[dict[str, Any]] | None:
    kinds = sorted({name for r in records for name in r["agents"]})
    if len(kinds) < 2:
        return None
    out = []
    for kind in kinds:
        seats = [(r, s) for r in records for s in range(n) if r["agents"][s] == kind]
        wins = sum(r["returns"][s] > 0 for r, s in seats)
        out.append({"agent": kind, **_rate(wins, len(seats))})
    return out


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
        out.append(f"trigger {trigger} never fired (in {coverage['trigger_sample']} matches)")
    for phase in coverage["phases_never_entered"]:
        out.append(f"phase {phase} was never entered")
    for option in coverage.get("options_without_effect", []):
        out.append(f"option {option['option']}={option['tried']} changed nothing in {option['matches']} matches")
    return out
