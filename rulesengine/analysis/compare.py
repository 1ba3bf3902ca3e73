"""Compare two analyses made with the same seeds: each statistic for both, the difference,
and a two-sided test of whether it is larger than chance explains (p < 0.05)."""

from __future__ import annotations

from typing import Any

from ..diagnostics import printable
from . import stats

ALPHA = 0.05
# Both tests are large-sample (normal) approximations: with fewer matches a side, their
# p-values are far too small, so such rows show the difference only.
MIN_SAMPLE = 30


def _row(name: str, a: float, b: float, p_value: float | None, kind: str = "number") -> dict[str, Any]:
    return {
        "statistic": name,
        "kind": kind,
        "a": a,
        "b": b,
        "difference": b - a,
        "p_value": p_value,
        "significant": p_value is not None and p_value < ALPHA,
    }


def _proportion(name: str, x_a: int, n_a: int, x_b: int, n_b: int, matches: tuple[int, int]) -> dict[str, Any]:
    """A rate's row; `matches` the matches each side played (the samples the test needs)."""
    tested = min(n_a, n_b, *matches) >= MIN_SAMPLE
    p_value = stats.two_proportions(x_a, n_a, x_b, n_b) if tested else None
    return _row(name, x_a / n_a if n_a else 0.0, x_b / n_b if n_b else 0.0, p_value, "rate")


def _mean(name: str, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """A per-match mean's row (one value per match, so that the samples are independent)."""
    tested = min(a["count"], b["count"]) >= MIN_SAMPLE
    p_value = stats.two_means(a["mean"], a["variance"], a["count"], b["mean"], b["variance"], b["count"])
    return _row(name, a["mean"], b["mean"], p_value if tested else None)


def compare(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    rows = []
    ga, gb = a["games"], b["games"]
    matches = (ga, gb)
    for sa, sb in zip(a["seats"], b["seats"]):
        rows.append(_proportion(f"seat {sa['seat']} win rate", sa["wins"], ga, sb["wins"], gb, matches))
    # a draw is a whole match's result, every return 0 (with match.returns, a seat's return of
    # 0 may be a player who merely staked nothing)
    draws = a["drawn_matches"], b["drawn_matches"]
    rows.append(_proportion("draw rate (every return 0)", draws[0], ga, draws[1], gb, matches))
    length_a, length_b = a["length"], b["length"]
    rows.append(_mean("decisions per match", length_a["decisions"], length_b["decisions"]))
    rows.append(_mean("rounds per match", length_a["rounds"], length_b["rounds"]))
    # The rounds of one match are not independent samples (one long match has long rounds),
    # so the figures per round show the difference only, like those per decision below.
    rounds = length_a["round_decisions"]["mean"], length_b["round_decisions"]["mean"]
    rows.append(_row("decisions per round", *rounds, None))
    ea, eb = a["endings"], b["endings"]
    capped = ea["matches"]["engine_cap"], eb["matches"]["engine_cap"]
    rows.append(_proportion("matches stopped at the engine's limit", capped[0], ga, capped[1], gb, matches))
    rounds_a, rounds_b = sum(ea["rounds"].values()), sum(eb["rounds"].values())
    for kind, words in (("limit", "rounds ending at the turn limit"), ("stuck", "rounds where nobody could move")):
        share_a = ea["rounds"][kind] / rounds_a if rounds_a else 0.0
        share_b = eb["rounds"][kind] / rounds_b if rounds_b else 0.0
        rows.append(_row(words, share_a, share_b, None, "rate"))
    roles_b = {r["role"]: r for r in b["roles"]}
    for role in a["roles"]:
        other = roles_b.get(role["role"])
        if other is not None:
            name = f"role {role['role']} win rate"
            rows.append(_proportion(name, role["wins"], role["trials"], other["wins"], other["trials"], matches))
    rows.append(_row("legal actions per decision", a["branching"]["mean"], b["branching"]["mean"], None))
    rows.append(_mean("lead changes per match", a["standing"]["lead_changes"], b["standing"]["lead_changes"]))
    moves_b = {m["move"]: m for m in b["moves"]}
    for move in a["moves"]:
        other = moves_b.get(move["move"])
        if other is not None:
            rows.append(
                _row(f"move {move['move']} chosen share", move["chosen_share"], other["chosen_share"], None, "rate")
            )
    return {
        "a": a,
        "b": b,
        "same_seeds": a["seed"] == b["seed"],
        "partial": a["partial"] or b["partial"],
        "alpha": ALPHA,
        "rows": rows,
    }


def unfinished(a: dict[str, Any]) -> dict[str, Any]:
    """The comparison of a run stopped while A was played: B was not, so nothing is compared
    (`b` is null and there are no rows); A's statistics are those of its matches done."""
    return {"a": a, "b": None, "same_seeds": None, "partial": True, "alpha": ALPHA, "rows": []}


def _fmt(value: float, kind: str) -> str:
    return f"{value:.1%}" if kind == "rate" else f"{value:,.2f}"


def render(c: dict[str, Any]) -> str:
    a, b = c["a"], c["b"]

    def name(d: dict[str, Any]) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in d["options"].items())
        return f"{d['ruleset']} ({d['players']} players{', ' + settings if settings else ''})"

    lines = [
        f"A: {name(a)}",
        f"B: {name(b)}",
        f"{a['games']} and {b['games']} matches, seeds from {a['seed']}" + (" -- PARTIAL" if c["partial"] else ""),
    ]
    for label, d in (("A", a), ("B", b)):
        lines.extend(f"warning ({label}): {w}" for w in d["warnings"])
    lines.append("")
    lines.append(f"{'statistic':<42} {'A':>10} {'B':>10} {'B - A':>10} {'p':>8}")
    for row in c["rows"]:
        p = "" if row["p_value"] is None else f"{row['p_value']:.3g}"
        mark = " *" if row["significant"] else ""
        kind = row["kind"]
        lines.append(
            f"{row['statistic']:<42} {_fmt(row['a'], kind):>10} {_fmt(row['b'], kind):>10} "
            f"{_fmt(row['difference'], kind):>10} {p:>8}{mark}"
        )
    lines.append(f"* significant at p < {c['alpha']} (two-sided; each row tested on its own)")
    # each line printable: a name from the rule file holding a line break or a terminal's
    # control sequence shows as escapes, and cannot pass for a line of its own
    return "\n".join(map(printable, lines))
