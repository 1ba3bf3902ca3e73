"""A self-contained HTML report: every plot is an inline SVG drawn by matplotlib, the data
behind it is embedded as JSON, and nothing is fetched from the network to view it."""

from __future__ import annotations

import html
import io
import json
from typing import Any

import matplotlib

matplotlib.use("Agg")  # no display: draw to files only
import matplotlib.pyplot as plt  # noqa: E402

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; } td, th { padding: .2em .7em; border-bottom: 1px solid #ddd; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.warning { background: #fff3cd; border-left: 4px solid #e0a800; padding: .4em .8em; margin: .3em 0; }
.partial { background: #f8d7da; border-left: 4px solid #c82333; padding: .4em .8em; }
figure { display: inline-block; margin: .5em; } figure svg { max-width: 520px; height: auto; }
"""


def _svg(fig, name: str) -> str:
    """The figure as inline SVG (text kept as text); the name keeps element ids apart."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        fig.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # drop the XML prologue and doctype: HTML does not want them


def _figure(name: str, title: str, draw) -> str:
    fig, ax = plt.subplots(figsize=(6, 3.4))
    draw(ax)
    fig.tight_layout()
    caption = f"<figcaption>{html.escape(title)}</figcaption>"
    return f'<figure class="plot" id="plot-{name}">{_svg(fig, name)}{caption}</figure>'


def _rates(
    ax,
    labels: list[str],
    rates: list[float],
    intervals: list[list[float]],
    baseline: float | None = None,
    offset: float = 0.0,
    width: float = 0.6,
    label: str | None = None,
) -> None:
    positions = [i + offset for i in range(len(labels))]
    below = [r - ci[0] for r, ci in zip(rates, intervals)]
    above = [ci[1] - r for r, ci in zip(rates, intervals)]
    ax.bar(positions, rates, width=width, yerr=[below, above], capsize=4, label=label)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("win rate (95 % interval)")
    if baseline is not None:
        ax.axhline(baseline, color="grey", linestyle="--", linewidth=1, label="every player")


def _histogram(ax, histogram: dict[str, list], label: str | None = None, alpha: float = 1.0) -> None:
    edges, counts = histogram["edges"], histogram["counts"]
    if counts:
        ax.stairs(counts, edges, fill=True, alpha=alpha, label=label)
    ax.set_xlabel("decisions per match")
    ax.set_ylabel("matches")


def _endings(ax, d: dict[str, Any]) -> None:
    rounds = d["endings"]["rounds"]
    matches = d["endings"]["matches"]
    labels = [f"round: {k}" for k in rounds] + [f"match: {k}" for k in matches]
    values = list(rounds.values()) + list(matches.values())
    colours = ["#4c72b0" if k.endswith(("normal", "end_game")) else "#c44e52" for k in labels]
    ax.barh(labels, values, color=colours)
    ax.set_xlabel("count")


def _moves(ax, d: dict[str, Any]) -> None:
    names = [m["move"] for m in d["moves"]]
    positions = range(len(names))
    ax.barh([p + 0.2 for p in positions], [m["legal_share"] for m in d["moves"]], height=0.4, label="legal")
    ax.barh([p - 0.2 for p in positions], [m["chosen_share"] for m in d["moves"]], height=0.4, label="chosen")
    ax.set_yticks(list(positions), names)
    ax.set_xlabel("share of decisions")
    ax.legend()


def _table(headers: list[str], rows: list[list[Any]], name: str) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for value in row:
            if isinstance(value, float):
                cells.append(f'<td class="num" data-value="{value!r}">{value:.4g}</td>')
            elif isinstance(value, int):
                cells.append(f'<td class="num" data-value="{value}">{value}</td>')
            else:
                cells.append(f"<td>{html.escape(str(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table id="table-{name}"><tr>{head}</tr>{"".join(body)}</table>'


def _data_script(data: dict[str, Any]) -> str:
    text = json.dumps(data, default=str).replace("</", "<\\/")  # JSON that cannot end the script element
    return f'<script type="application/json" id="analysis-data">{text}</script>'


def _page(title: str, body: list[str], data: dict[str, Any]) -> str:
    page = (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>{''.join(body)}{_data_script(data)}</body></html>\n"
    )
    # A name read from a file name or an argument that is not UTF-8 holds lone surrogates: the
    # page shows them as escapes rather than failing to be written.
    return page.encode("utf-8", "backslashreplace").decode("utf-8")


def _header(d: dict[str, Any]) -> list[str]:
    settings = ", ".join(f"{k}={v}" for k, v in d["options"].items()) or "defaults"
    out = [
        f"<p>{d['games']} of {d['games_requested']} matches, {d['players']} players, options: "
        f"{html.escape(settings)}, seeds from {d['seed']}; agents {html.escape(', '.join(d['agents']))}; "
        f"engine {html.escape(d['engine_version'])}; file {html.escape(d['path'])} "
        f"(SHA-256 <code>{html.escape(str(d['sha256']))}</code>)</p>"
    ]
    if d["partial"]:
        out.append('<p class="partial">Partial: the run was stopped early; these are the matches completed.</p>')
    out.extend(f'<p class="warning">{html.escape(w)}</p>' for w in d["warnings"])
    return out


def report(d: dict[str, Any]) -> str:
    """The report of one analysis (as `analyse` returns it)."""
    seats = d["seats"]
    body = [f"<h1>Balance report: {html.escape(d['ruleset'])}</h1>", *_header(d), "<h2>Seats and roles</h2>"]
    baseline = d["roles"][0]["baseline"] if d["roles"] else None
    body.append(
        _figure(
            "seats",
            "Win rate by seat",
            lambda ax: _rates(
                ax,
                [f"seat {s['seat']}" for s in seats],
                [s["win_rate"] for s in seats],
                [s["ci95"] for s in seats],
                baseline,
            ),
        )
    )
    if d["roles"]:
        body.append(
            _figure(
                "roles",
                "Win rate by role (held in the first round)",
                lambda ax: _rates(
                    ax,
                    [r["role"] for r in d["roles"]],
                    [r["rate"] for r in d["roles"]],
                    [r["ci95"] for r in d["roles"]],
                    baseline,
                ),
            )
        )
    body.append(
        _table(
            ["seat", "wins", "losses", "draws", "win rate", "95% low", "95% high", "mean return"],
            [
                [s["seat"], s["wins"], s["losses"], s["draws"], s["win_rate"], *s["ci95"], s["mean_return"]]
                for s in seats
            ],
            "seats",
        )
    )
    fair = d["seat_fairness"]
    if fair is not None:
        body.append(
            f"<p>Seat fairness: chi-square {fair['statistic']:.3f} with {fair['df']} degrees of freedom, "
            f"p = {fair['p_value']:.3g}.</p>"
        )
    body.append(
        _table(
            ["role", "trials", "wins", "win rate", "95% low", "95% high", "p"],
            [[r["role"], r["trials"], r["wins"], r["rate"], *r["ci95"], r["p_value"]] for r in d["roles"]],
            "roles",
        )
    )
    if d["skill"]:
        body.append(
            _figure(
                "skill",
                "Win rate by agent",
                lambda ax: _rates(
                    ax,
                    [a["agent"] for a in d["skill"]],
                    [a["rate"] for a in d["skill"]],
                    [a["ci95"] for a in d["skill"]],
                ),
            )
        )
    body.append("<h2>Length and endings</h2>")
    body.append(_figure("length", "Match length", lambda ax: _histogram(ax, d["length"]["histogram"])))
    body.append(_figure("endings", "How rounds and matches ended", lambda ax: _endings(ax, d)))
    body.append(
        _table(
            ["measure", "mean", "p10", "median", "p90", "min", "max"],
            [
                [name, s["mean"], s["p10"], s["p50"], s["p90"], s["min"], s["max"]]
                for name, s in (
                    ("decisions per match", d["length"]["decisions"]),
                    ("rounds per match", d["length"]["rounds"]),
                    ("decisions per round", d["length"]["round_decisions"]),
                )
            ],
            "length",
        )
    )
    standing = d["standing"]
    decided = standing["matches_with_a_leader_for_good"]
    led = (
        f"the winner took the lead for good after {standing['led_for_good']['mean']:.0%} of the match "
        f"({decided} matches)"
        if decided
        else "in no match did a leader stay ahead to the end"
    )
    body.append(
        f"<p>Standing from {html.escape(standing['source'])}: {standing['lead_changes']['mean']:.2f} lead "
        f"changes per match on average; {led}.</p>"
    )
    body.append("<h2>Moves</h2>")
    body.append(_figure("moves", "Move usage", lambda ax: _moves(ax, d)))
    branching = d["branching"]
    body.append(
        f"<p>Legal actions per decision: mean {branching['mean']:.2f}, max {branching['max']}; "
        f"{branching['forced_share']:.1%} of decisions had a single choice.</p>"
    )
    body.append(
        _table(
            ["move", "legal", "chosen", "legal share", "chosen share"],
            [[m["move"], m["legal"], m["chosen"], m["legal_share"], m["chosen_share"]] for m in d["moves"]],
            "moves",
        )
    )
    return _page(f"Balance report: {d['ruleset']}", body, d)


def comparison_report(c: dict[str, Any]) -> str:
    """The report of a comparison (as `compare` returns it)."""
    a, b = c["a"], c["b"]
    # b is None when the run was stopped while A was played: A's matches done are shown alone
    sides = [("A", a)] if b is None else [("A", a), ("B", b)]
    title = f"A {a['ruleset']}" + ("" if b is None else f" and B {b['ruleset']}")
    body = [f"<h1>Comparison: {html.escape(title)}</h1>"]
    for label, d in sides:
        body += [f"<h2>{label}</h2>", *_header(d)]
    if b is None:
        body.append('<p class="partial">B was not simulated: the run was stopped while A was played.</p>')

    def seats(ax) -> None:
        for offset, (label, d) in zip((-0.2, 0.2), sides):
            _rates(
                ax,
                [f"seat {s['seat']}" for s in d["seats"]],
                [s["win_rate"] for s in d["seats"]],
                [s["ci95"] for s in d["seats"]],
                offset=offset,
                width=0.4,
                label=label,
            )
        ax.legend()

    def lengths(ax) -> None:
        for label, d in sides:
            _histogram(ax, d["length"]["histogram"], label, 0.6)
        ax.legend()

    names = " and ".join(label for label, _ in sides)
    body.append(_figure("seats", f"Win rate by seat, {names}", seats))
    body.append(_figure("length", f"Match length, {names}", lengths))
    body.append(
        _table(
            ["statistic", "A", "B", "B - A", "p", "significant"],
            [
                [
                    r["statistic"],
                    r["a"],
                    r["b"],
                    r["difference"],
                    "" if r["p_value"] is None else r["p_value"],
                    "yes" if r["significant"] else "",
                ]
                for r in c["rows"]
            ],
            "comparison",
        )
    )
    body.append(f"<p>Significant: p &lt; {c['alpha']}, two-sided, each row tested on its own.</p>")
    return _page("Comparison", body, c)
