"""The analysis as a readable text table."""

from __future__ import annotations

from typing import Any

from ..diagnostics import printable


def _pct(value: float) -> str:
    return f"{value:.1%}"


def _ci(pair: list[float]) -> str:
    return f"[{pair[0]:.1%}, {pair[1]:.1%}]"


def _spread(d: dict[str, float]) -> str:
    return (
        f"mean {d['mean']:.1f}, p10 {d['p10']:g}, median {d['p50']:g}, p90 {d['p90']:g}, "
        f"min {d['min']:g}, max {d['max']:g}"
    )


def render(a: dict[str, Any]) -> str:
    lines = []
    partial = " -- PARTIAL: stopped early" if a["partial"] else ""
    settings = ", ".join(f"{k}={v}" for k, v in a["options"].items())
    lines.append(
        f"{a['ruleset']}: {a['games']} of {a['games_requested']} matches, {a['players']} players, "
        f"seeds {a['seed']}..{a['seed'] + a['games_requested'] - 1}{partial}"
    )
    if settings:
        lines.append(f"options: {settings}")
    if a["warnings"]:
        lines.append("")
        lines.extend(f"warning: {w}" for w in a["warnings"])
    lines.append("")
    lines.append(f"{'seat':>6} {'wins':>7} {'losses':>7} {'draws':>7} {'win rate':>9}  95% interval     mean return")
    for s in a["seats"]:
        lines.append(
            f"{s['seat']:>6} {s['wins']:>7} {s['losses']:>7} {s['draws']:>7} {_pct(s['win_rate']):>9}  "
            f"{_ci(s['ci95']):<16} {s['mean_return']:+.3f}"
        )
    fair = a["seat_fairness"]
    if fair is not None:
        lines.append(f"seat fairness: chi-square {fair['statistic']:.2f} (df {fair['df']}), p = {fair['p_value']:.3g}")
    for role in a["roles"]:
        lines.append(
            f"role {role['role']}: wins {_pct(role['rate'])} {_ci(role['ci95'])} of {role['trials']} "
            f"(every player: {_pct(role['baseline'])}; p = {role['p_value']:.3g})"
        )
    if a["skill"]:
        for agent in a["skill"]:
            lines.append(
                f"agent {agent['agent']}: wins {_pct(agent['rate'])} {_ci(agent['ci95'])} "
                f"of {agent['trials']} seats played"
            )
    length = a["length"]
    lines.append("")
    lines.append(f"decisions per match: {_spread(length['decisions'])}")
    lines.append(f"rounds per match:    {_spread(length['rounds'])}")
    lines.append(f"decisions per round: {_spread(length['round_decisions'])}")
    ends = a["endings"]
    lines.append("match ends: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ends["matches"].items()))
    lines.append("round ends: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in ends["rounds"].items()))
    standing = a["standing"]
    decided = standing["matches_with_a_leader_for_good"]
    led = (
        f"winner led for good after {standing['led_for_good']['mean']:.0%} of the match on average ({decided} matches)"
        if decided
        else "no match had a leader who stayed ahead to the end"
    )
    lines.append(f"standing ({standing['source']}): lead changes mean {standing['lead_changes']['mean']:.2f}; {led}")
    branching = a["branching"]
    lines.append(
        f"legal actions per decision: mean {branching['mean']:.2f}, max {branching['max']}, "
        f"forced {_pct(branching['forced_share'])}"
    )
    lines.append("")
    lines.append(f"{'move':<24} {'legal':>10} {'chosen':>10}")
    for m in a["moves"]:
        lines.append(f"{m['move']:<24} {_pct(m['legal_share']):>10} {_pct(m['chosen_share']):>10}")
    lines.append("")
    lines.append(
        f"{a['seconds']:.1f} s, {a['matches_per_second']:.1f} matches/s, "
        f"{a['decisions_per_second']:,.0f} decisions/s ({a['backend']}, {a['workers']} worker(s))"
    )
    # each line printable: a name from the rule file holding a line break or a terminal's
    # control sequence shows as escapes, and cannot pass for a line of its own
    return "\n".join(map(printable, lines))
