"""The checker: its split by job, the shape table behind the schema, explicit values,
reserved keywords, integer bounds, suit attributes, static cost bounds and nobody."""

from __future__ import annotations

import glob
import importlib
import json
import math
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import authoring, limits, shape
from rulesengine.api import validate_file
from rulesengine.check_base import STATEMENT_KEYWORDS
from rulesengine.check_cost import Costs, GameSize

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(glob.glob(str(ROOT / "rulesets" / "*.yaml"))) + sorted(glob.glob(str(ROOT / "examples" / "*.yaml")))

BASE = """\
name: Checker game
players: {min: 2, max: 4}
decks:
  standard:
    suits: [hearts, spades]
    ranks: ["1", "2", "3", "4", "5", "6"]
    zone: stock
zones:
  stock: {visibility: nobody}
  hand: {per: player, visibility: owner}
  pile: {visibility: all}
variables:
  score: {type: int, per: player}
round:
  setup:
    - move pile to stock
    - shuffle stock
    - deal 3 of stock to hand from seat(0)
phases:
  play:
    moves: [lay]
moves:
  lay:
    params: {card: "hand[me]"}
    legal: score[me] >= 0
    effects:
      - move card to pile
      - score[me] += 1
triggers:
  done:
    for: p in players
    when: empty(hand[p])
    effects: [end round]
match:
  until: round >= 1
"""


def diagnostics_of(tmp_path: Path, text: str, *changes: tuple[str, str]) -> list:
    """Every diagnostic of `text` with `changes` applied (each must find its text)."""
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    return validate_file(path)[1]


def diagnose(tmp_path: Path, text: str, *changes: tuple[str, str]) -> list[tuple[str, str]]:
    """(code, message) of every diagnostic of BASE (or `text`) with `changes` applied."""
    return [(d.code, d.message) for d in diagnostics_of(tmp_path, text, *changes)]


def codes(found: list[tuple[str, str]]) -> set[str]:
    return {code for code, _ in found}


def test_the_base_game_is_valid(tmp_path):
    assert diagnose(tmp_path, BASE) == []


# ---- the split and the rename ---------------------------------------------------------------


def test_the_checker_keeps_its_entry_points_and_is_split_by_job():
    check = importlib.import_module("rulesengine.check")
    for name in ("check", "check_block", "check_with_warnings", "is_block", "BUILTINS", "FUNCTIONS", "MACROS"):
        assert hasattr(check, name), name
    for module in ("check_base", "check_sections", "check_expressions", "check_lints", "check_fold", "check_cost"):
        importlib.import_module(f"rulesengine.{module}")
    assert not (ROOT / "rulesengine" / "ast.py").exists()  # the syntax trees live in syntax.py
    assert importlib.import_module("rulesengine.syntax").Expr


# ---- one table for the section keys and the JSON Schema --------------------------------------


def test_the_shipped_schema_file_is_generated_from_the_table():
    shipped = (ROOT / "rulesengine" / authoring.SCHEMA_FILE).read_text(encoding="utf-8")
    assert shipped == shape.schema_text() == authoring.schema_text()


# Where each kind of section sits in BASE, to give it an unknown key.
PLACES = {
    "players": ("players: {min: 2, max: 4}", "players: {min: 2, max: 4, zz: 1}"),
    "deck": ("    zone: stock\n", "    zone: stock\n    zz: 1\n"),
    "zone": ("pile: {visibility: all}", "pile: {visibility: all, zz: 1}"),
    "variable": ("score: {type: int, per: player}", "score: {type: int, per: player, zz: 1}"),
    "phase": ("    moves: [lay]\n", "    moves: [lay]\n    zz: 1\n"),
    "move": ("    legal: score[me] >= 0\n", "    legal: score[me] >= 0\n    zz: 1\n"),
    "trigger": ("    when: empty(hand[p])\n", "    when: empty(hand[p])\n    zz: 1\n"),
    "match": ("  until: round >= 1\n", "  until: round >= 1\n  zz: 1\n"),
    "round": ("round:\n", "round:\n  zz: 1\n"),
    "cards": ("zones:\n", "cards: {zz: 1}\nzones:\n"),
    "option": ("zones:\n", "options: {o: {default: 1, zz: 1}}\nzones:\n"),
    "limit": ("round:\n", "round:\n  limit: {turns: 5, zz: 1}\n"),
    "param": ('params: {card: "hand[me]"}', 'params: {card: {from: "hand[me]", size: 1, zz: 1}}'),
    "procedure": ("zones:\n", "procedures: {p: {effects: [reverse], zz: 1}}\nzones:\n"),
}


@pytest.mark.parametrize("kind", sorted(PLACES))
def test_the_checker_accepts_exactly_the_keys_of_the_schema(tmp_path, kind):
    text = BASE.replace(*PLACES[kind], 1)
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    _, diagnostics = validate_file(path)
    (unknown,) = [d for d in diagnostics if d.code == "RE201"]
    allowed = set(unknown.hint.removeprefix("allowed keys: ").split(", "))
    assert allowed == set(shape.json_schema()["definitions"][kind]["properties"])


def test_every_section_kind_is_tried():
    assert set(PLACES) == set(shape.SECTIONS)


# What the checker reports when a key the table marks as required is left out of a game.
REQUIRED = {
    ("top", "name"): ("name: Checker game\n", "", "RE206"),
    ("top", "players"): ("players: {min: 2, max: 4}\n", "", "RE206"),
    ("top", "decks"): (
        "decks:\n  standard:\n    suits: [hearts, spades]\n",
        "zz:\n  standard:\n    suits: []\n",
        "RE206",
    ),
    ("top", "zones"): ("zones:\n", "zz:\n", "RE206"),
    ("top", "phases"): ("phases:\n", "zz:\n", "RE206"),
    ("top", "moves"): ("moves:\n  lay:\n", "zz:\n  lay:\n", "RE206"),
    ("top", "match"): ("match:\n", "zz:\n", "RE206"),
    ("deck", "suits"): ("    suits: [hearts, spades]\n", "", "RE212"),
    ("deck", "ranks"): ('    ranks: ["1", "2", "3", "4", "5", "6"]\n', "", "RE212"),
    ("deck", "zone"): ("    zone: stock\n", "", "RE213"),
    ("phase", "moves"): ("    moves: [lay]\n", "    until: true\n", "RE222"),
    ("option", "default"): ("zones:\n", "options: {o: {min: 1}}\nzones:\n", "RE208"),
    ("param", "from"): ('params: {card: "hand[me]"}', "params: {card: {size: 1}}", "RE228"),
    ("trigger", "when"): ("    when: empty(hand[p])\n", "", "RE233"),
}


def test_the_required_keys_of_the_table_are_those_the_checker_requires():
    table = {("top", k) for k, key in shape.TOP.items() if key.required}
    table |= {(kind, k) for kind in shape.SECTIONS for k in shape.required_keys(kind)}
    assert table == set(REQUIRED)


@pytest.mark.parametrize("place", sorted(REQUIRED), ids=lambda p: ".".join(p))
def test_a_game_without_a_required_key_is_refused(tmp_path, place):
    old, new, code = REQUIRED[place]
    assert code in codes(diagnose(tmp_path, BASE, (old, new)))


# ---- explicit values are never replaced by a default --------------------------------------------


@pytest.mark.parametrize(
    "change, code",
    [
        (("players: {min: 2, max: 4}", "players: {min: 0, max: 4}"), "RE207"),
        (("players: {min: 2, max: 4}", "players: {min: 2, max: 0}"), "RE207"),
        (("players: {min: 2, max: 4}", "players: {min: 2, max: 4, default: 0}"), "RE207"),
        (("    zone: stock\n", "    zone: stock\n    copies: 0\n"), "RE237"),
        (("pile: {visibility: all}", 'pile: {visibility: ""}'), "RE216"),
        (("name: Checker game", 'name: ""'), "RE205"),
        (("round:\n", "round:\n  limit: {turns: 0}\n"), "RE207"),
        (("round:\n", "round:\n  limit: {turns: 9, accepted_share: -0.1}\n"), "RE207"),
        (("round:\n", "round:\n  limit: {turns: 9, accepted_share: 1.5}\n"), "RE207"),
        (("round:\n", "round:\n  limit: {turns: 9, accepted_share: .nan}\n"), "RE207"),
        (("round:\n", "round:\n  limit: {turns: 9, accepted_share: true}\n"), "RE207"),
        (("round:\n", "round:\n  limit: {turns: 9, accepted_share: half}\n"), "RE207"),
    ],
)
def test_an_explicit_zero_or_empty_value_is_checked_as_written(tmp_path, change, code):
    assert code in codes(diagnose(tmp_path, BASE, change))


@pytest.mark.parametrize("share", ["0", "0.25", "1", "null"])
def test_a_share_of_rounds_from_0_to_1_may_end_at_the_limit(tmp_path, share):
    assert diagnose(tmp_path, BASE, ("round:\n", f"round:\n  limit: {{turns: 9, accepted_share: {share}}}\n")) == []


@pytest.mark.parametrize("maximum", ["1000000000000000000", "9" * 400])
def test_a_huge_players_max_is_refused_at_once(tmp_path, maximum):
    start = time.perf_counter()
    found = diagnose(tmp_path, BASE, ("players: {min: 2, max: 4}", f"players: {{min: 2, max: {maximum}}}"))
    assert time.perf_counter() - start < 2.0
    # the loader refuses a number beyond 64 bits (RE018) before the checker sees the count
    assert codes(found) & {"RE207", "RE018"} and codes(found) <= {"RE207", "RE018"}


# ---- keywords of the effect language ------------------------------------------------------------


def test_the_keywords_are_read_from_the_grammar():
    assert {"out", "log", "move", "shuffle", "deal", "reveal", "goto", "end", "to", "from"} <= STATEMENT_KEYWORDS
    grammar = (ROOT / "grammar" / "rules.lark").read_text(encoding="utf-8")
    assert all(f'"{word}"' in grammar for word in STATEMENT_KEYWORDS)


def test_the_language_reference_lists_every_keyword():
    text = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    sentence = text[text.index("The words of the effect language") :].split("(`RE243`)")[0]
    listed = {part.rstrip(",").strip("`") for part in sentence.split() if part.startswith("`")}
    assert listed == STATEMENT_KEYWORDS


@pytest.mark.parametrize("word", sorted(STATEMENT_KEYWORDS))
def test_a_keyword_names_no_variable_zone_move_or_parameter(tmp_path, word):
    places = [
        ("  score: {type: int, per: player}", f"  score: {{type: int, per: player}}\n  {word}: {{type: int}}"),
        ("  pile: {visibility: all}", f"  pile: {{visibility: all}}\n  {word}: {{visibility: all}}"),
        ("moves:\n  lay:", f"moves:\n  {word}:\n    pass: true\n  lay:"),
        ('params: {card: "hand[me]"}', f'params: {{card: "hand[me]", {word}: "players"}}'),
    ]
    for place in places:
        assert "RE243" in codes(diagnose(tmp_path, BASE, place)), place


# ---- integers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "legal, bad",
    [
        ("score[me] >= 9223372036854775807", False),
        ("score[me] >= 9223372036854775808", True),
        ("score[me] >= 9223372036854775807 + 1", True),
        ("score[me] >= 3037000500 * 3037000500", True),
        ("score[me] >= 3037000499 * 3037000499", False),
        ("score[me] >= -9223372036854775807 - 1", True),
    ],
)
def test_integers_beyond_64_bits_are_refused_where_the_checker_folds_them(tmp_path, legal, bad):
    found = codes(diagnose(tmp_path, BASE, ("legal: score[me] >= 0", f"legal: {legal}")))
    # a literal beyond the bound is refused by the parser (RE107), a folded one by the checker
    assert bool(found & {"RE247", "RE107"}) == bad


def test_a_yaml_number_beyond_64_bits_is_refused(tmp_path):
    found = diagnose(tmp_path, BASE, ("zones:\n", "options: {o: {default: 1, max: 99999999999999999999}}\nzones:\n"))
    assert "RE018" in codes(found)  # by the loader, before any section is read


# ---- suit attributes ----------------------------------------------------------------------------


def test_a_suit_attribute_must_be_given_for_every_suit_with_one_type(tmp_path):
    partial = ("suits: [hearts, spades]", "suits:\n      hearts: {colour: red}\n      spades: {}")
    mixed = ("suits: [hearts, spades]", "suits:\n      hearts: {colour: red}\n      spades: {colour: 2}")
    full = ("suits: [hearts, spades]", "suits:\n      hearts: {colour: red}\n      spades: {colour: black}")
    use = ("legal: score[me] >= 0", 'legal: card.colour == "red"')
    assert codes(diagnose(tmp_path, BASE, partial, use)) == {"RE245"}
    assert codes(diagnose(tmp_path, BASE, mixed, use)) == {"RE246"}
    assert diagnose(tmp_path, BASE, full, use) == []


@pytest.mark.parametrize("name", ["suit", "rank", "order", "id", "deck"])
def test_a_suit_or_computed_attribute_cannot_hide_a_card_s_own(tmp_path, name):
    suits = ("suits: [hearts, spades]", f"suits:\n      hearts: {{{name}: 1}}\n      spades: {{{name}: 2}}")
    found = diagnose(tmp_path, BASE, suits)
    assert [code for code, _ in found] == ["RE220"]  # once, at the first suit
    computed = ("match:", f"cards:\n  attributes:\n    {name}: order * 2\nmatch:")
    assert [code for code, _ in diagnose(tmp_path, BASE, computed)] == ["RE220"]


# ---- static cost --------------------------------------------------------------------------------


def deck_game(suits: int, ranks: int, size: int, same: str | None) -> str:
    suit_names = ", ".join(f"s{i}" for i in range(suits))
    rank_names = ", ".join(f'"{i}"' for i in range(ranks))
    same_text = f", same: {same}" if same else ""
    return (
        BASE.replace("suits: [hearts, spades]", f"suits: [{suit_names}]", 1)
        .replace('ranks: ["1", "2", "3", "4", "5", "6"]', f"ranks: [{rank_names}]", 1)
        .replace('params: {card: "hand[me]"}', f'params: {{cards: {{from: "hand[me]", size: {size}{same_text}}}}}', 1)
        .replace("move card to pile", "move cards to pile", 1)
        .replace("deal 3 of", "deal 1 of", 1)
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    suits=st.integers(2, 8),
    ranks=st.integers(2, 13),
    size=st.integers(1, limits.MAX_SET_SIZE),
    same=st.sampled_from([None, "rank", "suit"]),
)
def test_a_move_s_actions_are_counted_exactly_before_any_is_built(tmp_path, suits, ranks, size, same):
    cards = suits * ranks
    if same is None:
        actions = math.comb(cards, size)
    elif same == "rank":
        actions = ranks * math.comb(suits, size)
    else:
        actions = suits * math.comb(ranks, size)
    found = diagnose(tmp_path, deck_game(suits, ranks, size, same))
    too_many = [message for code, message in found if code == "RE249"]
    assert bool(too_many) == (actions > limits.MAX_ACTIONS)
    if too_many:
        assert f"{actions:,}" in too_many[0] or "e" in too_many[0].split("actions")[0]


def test_fifty_two_choose_eight_is_refused_without_building_a_set(tmp_path):
    start = time.perf_counter()
    found = diagnose(tmp_path, deck_game(4, 13, 8, None))
    assert time.perf_counter() - start < 2.0
    assert [code for code, _ in found] == ["RE249"]
    assert "752,538,150" in found[0][1]


@pytest.mark.parametrize(
    "levels, bad",
    [(1, False), (2, True), (3, True)],
)
def test_nested_list_functions_over_long_ranges_multiply(tmp_path, levels, bad):
    body = "i0 == score[me]"
    for level in range(levels):
        body = f"range(10000).any(i{level}, {body})"
    found = codes(diagnose(tmp_path, BASE, ("legal: score[me] >= 0", f"legal: {body}")))
    assert ("RE248" in found) == bad


def test_the_cost_report_points_at_the_multiplying_expression(tmp_path):
    legal = "score[me] >= 0 and players.all(p, range(10000).any(i, range(10000).any(j, i == j)))"
    path = tmp_path / "game.yaml"
    path.write_text(BASE.replace("legal: score[me] >= 0", f"legal: {legal}"), encoding="utf-8")
    _, diagnostics = validate_file(path)
    (cost,) = [d for d in diagnostics if d.code == "RE248"]
    line = path.read_text().splitlines()[cost.span.line - 1]
    assert line[cost.span.column - 1 :].startswith("players.all(")


def test_a_range_bounded_by_an_option_counts_the_option_s_largest_value(tmp_path):
    option = ("zones:\n", "options: {n: {default: 10, min: 1, max: LIMIT}}\nzones:\n")
    legal = ("legal: score[me] >= 0", "legal: range(n).any(i, range(n).any(j, i == score[me]))")
    small = codes(diagnose(tmp_path, BASE, (option[0], option[1].replace("LIMIT", "100")), legal))
    large = codes(diagnose(tmp_path, BASE, (option[0], option[1].replace("LIMIT", "10000")), legal))
    assert "RE248" not in small and "RE248" in large


def test_cost_bounds_saturate_instead_of_growing():
    game = GameSize(5000, 16, 4, 13, (4,) * 13, (13,) * 4)
    costs = Costs(game, lambda call: limits.MAX_RANGE)
    from rulesengine import ir
    from rulesengine.diagnostics import Span

    span = Span("f", 1, 1, 1, 2)
    expr: ir.Expr = ir.Const(ir.BOOL, span, True)
    for slot in range(200):
        expr = ir.Macro(ir.BOOL, span, "any", ir.Call(ir.list_of(ir.INT), span, "range", ()), slot, expr)
    assert costs.cost(expr) <= 10**30


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_shipped_games_stay_far_below_the_cost_limits(path, monkeypatch):
    from rulesengine import check_lints

    decisions: list[int] = []
    actions: list[int] = []
    report, count = check_lints.FileLints.report_cost, check_lints.FileLints.action_counts

    def spy_report(self, costs, parts, what):
        decisions.append(sum(p.cost for p in parts))
        return report(self, costs, parts, what)

    def spy_count(self, move, costs, players):
        found = count(self, move, costs, players)
        actions.append(math.prod(found))
        return found

    monkeypatch.setattr(check_lints.FileLints, "report_cost", spy_report)
    monkeypatch.setattr(check_lints.FileLints, "action_counts", spy_count)
    ruleset, diagnostics = validate_file(Path(path))
    assert ruleset is not None and diagnostics == []
    # headroom documented in language.md: less where a set is chosen in steps from many combinations
    # (a capture of any group of up to three of all 40 cards, for every card of a 40-card hand)
    headroom = {"sum-capture.yaml": (10, 2), "fishing.yaml": (90, 10)}.get(Path(path).name, (100, 10))
    assert decisions and max(decisions) * headroom[0] <= limits.MAX_DECISION_COST
    assert actions and max(actions) * headroom[1] <= limits.MAX_ACTIONS


# ---- nobody --------------------------------------------------------------------------------------

CARD_VARIABLE = ("  score: {type: int, per: player}", "  score: {type: int, per: player}\n  lead: {type: card}")


@pytest.mark.parametrize(
    "legal",
    ["score[holder(lead)] >= 0", "size(hand[holder(lead)]) >= 0", "is_active(holder(lead))"],
)
def test_an_index_that_is_certainly_nobody_is_a_warning(tmp_path, legal):
    found = diagnose(tmp_path, BASE, CARD_VARIABLE, ("legal: score[me] >= 0", f"legal: {legal}"))
    assert codes(found) == {"RE244"}


def test_a_card_variable_that_is_set_somewhere_may_hold_a_card(tmp_path):
    found = diagnose(
        tmp_path,
        BASE,
        CARD_VARIABLE,
        ("legal: score[me] >= 0", "legal: score[holder(lead)] >= 0"),
        ("      - move card to pile\n", "      - move card to pile\n      - lead = card\n"),
    )
    assert found == []


def test_every_new_code_is_in_the_hostile_corpus():
    announced = set()
    for path in (ROOT / "tests" / "corpus" / "hostile").glob("*.yaml"):
        announced |= {line.split()[2] for line in path.read_text().splitlines() if line.startswith("# expect:")}
    assert {f"RE{n}" for n in range(243, 250)} <= announced


def test_json_schema_is_plain_json():
    assert json.loads(shape.schema_text()) == shape.json_schema()


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_the_static_action_count_bounds_what_a_match_offers(path, monkeypatch):
    """Soundness: at every decision of a random match, each move offers at most as many
    legal actions as the checker's static count of its actions."""
    import random

    from rulesengine import check_lints, make_game

    static: dict[str, int] = {}
    count = check_lints.FileLints.action_counts

    def spy(self, move, costs, players):
        found = count(self, move, costs, players)
        static[move.name] = math.prod(found)
        return found

    monkeypatch.setattr(check_lints.FileLints, "action_counts", spy)
    ruleset, _ = validate_file(Path(path))
    assert ruleset is not None
    game = make_game(ruleset, players=ruleset.max_players)
    chooser = random.Random(7)
    state = game.new_initial_state(seed=7)
    decisions = 0
    while not state.is_terminal() and decisions < 300:
        if state.is_chance_node():
            state.apply_action(chooser.choice([a for a, _ in state.chance_outcomes()]))
            continue
        offered: dict[str, int] = {}
        legal = state.legal_actions()
        for action in legal:
            name = game.encoding.block_at(action).move.name
            offered[name] = offered.get(name, 0) + 1
        assert all(n <= static[name] for name, n in offered.items()), (offered, static)
        state.apply_action(chooser.choice(legal))
        decisions += 1
    assert decisions > 0


def card_parameters_game(count: int) -> str:
    params = "".join(f'      p{i}: "[top(stock)]"\n' for i in range(count))
    return BASE.replace('    params: {card: "hand[me]"}\n', f'    params:\n      card: "hand[me]"\n{params}')


@pytest.mark.parametrize("count, bad", [(1, False), (4, False), (5, True), (6, True)])
def test_a_move_s_action_ids_are_bounded_before_any_is_built(tmp_path, count, bad):
    """Each card parameter's id block is every card of the game (12 here), however few its
    candidates: a move taken in one id has the product of its blocks as ids."""
    start = time.perf_counter()
    found = diagnose(tmp_path, card_parameters_game(count))
    assert time.perf_counter() - start < 2.0
    ids = 12 ** (count + 1)
    assert ("RE249" in codes(found)) == (ids > limits.MAX_ACTIONS) == bad
    if bad:
        assert "action ids" in next(message for code, message in found if code == "RE249")


def test_a_move_just_under_the_id_bound_is_played(tmp_path):
    from rulesengine import make_game

    path = tmp_path / "game.yaml"
    path.write_text(card_parameters_game(2), encoding="utf-8")
    ruleset, _ = validate_file(path)
    assert ruleset is not None
    game = make_game(ruleset, players=2)
    assert game.num_distinct_actions == 12**3
    state = game.new_initial_state(seed=1)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_the_static_id_count_bounds_each_move_s_id_block(path, monkeypatch):
    from rulesengine import check_lints, make_game

    static: dict[str, int] = {}
    count = check_lints.FileLints.action_ids

    def spy(self, move, costs, ruleset):
        static[move.name] = found = count(self, move, costs, ruleset)
        return found

    monkeypatch.setattr(check_lints.FileLints, "action_ids", spy)
    ruleset, _ = validate_file(Path(path))
    assert ruleset is not None
    for players in range(ruleset.min_players, ruleset.max_players + 1):
        game = make_game(ruleset, players=players)
        for block in game.encoding.blocks:
            assert block.width <= static[block.move.name]


ASSIGNED_LOCALS = [
    ('params: {card: "hand[me]"}\n    legal: score[me] >= 0\n    effects:\n', "      - card = top(pile)\n"),
    (
        'params: {card: "hand[me]"}\n    legal: score[me] >= 0\n    effects:\n',
        "      - for: score in [1]\n        do: [score = 2]\n",
    ),
]


@pytest.mark.parametrize("head, effect", ASSIGNED_LOCALS)
def test_a_local_is_never_assigned(tmp_path, head, effect):
    found = diagnose(tmp_path, BASE, (head, head + effect))
    assert [code for code, _ in found] == ["RE323"]


def test_a_procedure_parameter_hiding_a_variable_is_not_assigned(tmp_path):
    procedure = (
        "round:",
        'procedures:\n  q:\n    params: {x: int}\n    effects: ["x += 5", \'log "in q: {x}"\']\nround:',
    )
    variable = ("variables:\n", "variables:\n  x: {type: int}\n")
    call = ("    - deal 3 of stock to hand from seat(0)\n", "    - deal 3 of stock to hand from seat(0)\n    - q(1)\n")
    found = [
        (code, message) for code, message in diagnose(tmp_path, BASE, variable, procedure, call) if code != "RE240"
    ]
    assert [code for code, _ in found] == ["RE323"]  # (the variable is then never used: RE240)
    assert "parameter of procedure 'q'" in found[0][1] and "hides the variable 'x'" in found[0][1]


@pytest.mark.parametrize("name", ["me", "current", "players", "round", "turn"])
@pytest.mark.parametrize(
    "place",
    [
        (
            "      - score[me] += 1\n",
            "      - score[me] += 1\n      - for: {name} in players\n        do:\n          - score[seat(0)] += 1\n",
        ),
        ("legal: score[me] >= 0", "legal: players.any({name}, true)"),
        ("legal: score[me] >= 0", "legal: 3.bind({name}, true)"),
        ("    for: p in players\n    when: empty(hand[p])", "    for: {name} in players\n    when: num_players > 9"),
    ],
)
def test_a_loop_or_bind_variable_cannot_hide_a_built_in(tmp_path, name, place):
    old, new = place
    found = diagnose(tmp_path, BASE, (old, new.format(name=name)))
    assert [code for code, _ in found] == ["RE241"]


NOT_NAMES = ["1", "~", "a b", "x\x00", "t\x1b[2J", "caf\u00e9"]
DECLARED = {
    "variable": ("variables:\n", 'variables:\n  "{name}": {{type: int}}\n'),
    "zone": ("  pile: {visibility: all}\n", '  pile: {{visibility: all}}\n  "{name}": {{}}\n'),
    "move": ("moves:\n  lay:", 'moves:\n  "{name}":\n    effects: []\n  lay:'),
    "phase": ("phases:\n", 'phases:\n  "{name}":\n    moves: [lay]\n'),
    "trigger": ("triggers:\n", 'triggers:\n  "{name}":\n    when: "false"\n'),
    "option": ("variables:\n", 'options:\n  "{name}": {{default: 1}}\nvariables:\n'),
    "parameter": ('params: {card: "hand[me]"}', 'params: {{card: "hand[me]", "{name}": "[1]"}}'),
    "card attribute": ("match:", 'cards:\n  attributes:\n    "{name}": "1"\nmatch:'),
    "suit attribute": (
        "suits: [hearts, spades]",
        'suits:\n      hearts: {{"{name}": 1}}\n      spades: {{"{name}": 2}}',
    ),
}


@pytest.mark.parametrize("name", NOT_NAMES)
@pytest.mark.parametrize("kind", DECLARED)
def test_a_declared_name_must_be_a_name_of_the_language(tmp_path, kind, name):
    old, new = DECLARED[kind]
    escaped = name.replace("\x00", "\\0").replace("\x1b", "\\e")
    found = diagnose(tmp_path, BASE, (old, new.format(name=escaped)))
    assert "RE271" in codes(found), found
    assert codes(found) <= {"RE271", "RE240", "RE224", "RE227"}, found


@pytest.mark.parametrize("count, bad", [(limits.MAX_MOVE_PARAMETERS - 1, False), (limits.MAX_MOVE_PARAMETERS, True)])
def test_a_move_has_at_most_eight_parameters(tmp_path, count, bad):
    """The card itself and `count` more: the compiled listing nests a loop per parameter."""
    params = "".join(f'      p{i}: "[1]"\n' for i in range(count))
    text = BASE.replace('    params: {card: "hand[me]"}\n', f'    params:\n      card: "hand[me]"\n{params}')
    assert ("RE272" in codes(diagnose(tmp_path, text))) == bad


# ---- lists whose entries must differ --------------------------------------------------------------


def places(tmp_path: Path, *changes: tuple[str, str]) -> list[tuple[str, int, int, str]]:
    """(code, line, column, message) of every diagnostic of BASE with `changes` applied."""
    return [(d.code, d.span.line, d.span.column, d.message) for d in diagnostics_of(tmp_path, BASE, *changes)]


@pytest.mark.parametrize(
    "change, line, column, first",
    [
        (("suits: [hearts, spades]", "suits: [hearts, spades, hearts]"), 5, 29, "line 5, column 13"),
        (
            ("suits: [hearts, spades]", "suits:\n      - hearts\n      - spades\n      - spades"),
            8,
            9,
            "line 7, column 9",
        ),
        (('ranks: ["1", "2", "3"', 'ranks: ["1", "2", "1", "3"'), 6, 23, "line 6, column 13"),
        (('ranks: ["1", "2", "3"', 'ranks: [1, "2", "1", "3"'), 6, 21, "line 6, column 13"),  # one name, as written
        (("moves: [lay]", "moves: [lay, lay]"), 21, 18, "line 21, column 13"),
        (
            (
                "players: {min: 2, max: 4}\n",
                "players: {min: 2, max: 4}\noptions:\n  o: {default: b, choices: [a, b, a]}\n",
            ),
            4,
            35,
            "line 4, column 29",
        ),
    ],
)
def test_a_list_whose_entries_must_differ_names_none_twice(tmp_path, change, line, column, first):
    found = [p for p in places(tmp_path, change) if p[0] != "RE240"]
    assert [p[:3] for p in found] == [("RE274", line, column)], found
    assert f"twice (first at {first})" in found[0][3]


def test_suits_given_as_a_mapping_name_no_suit_twice_and_decks_still_share_suits(tmp_path):
    twice = ("suits: [hearts, spades]", "suits:\n      hearts: {colour: red}\n      hearts: {colour: black}")
    assert [p[:3] for p in places(tmp_path, twice)] == [("RE002", 7, 7)]
    other_deck = (
        "    zone: stock\n",
        '    zone: stock\n  jokers:\n    suits: [hearts, spades]\n    ranks: ["1"]\n    zone: stock\n',
    )
    assert places(tmp_path, other_deck) == []  # two decks may share a suit and a rank


# ---- effects of the top-level setup that steer a round ----------------------------------------------

SETUP_FLOW = BASE.replace("round:\n", "setup:\n  - EFFECT\nround:\n", 1).replace(
    "phases:\n  play:\n    moves: [lay]\n",
    "phases:\n  play:\n    moves: [lay]\n    next: end\n  bonus:\n    moves: [lay]\n",
)


@pytest.mark.parametrize("effect", ["goto bonus", "end phase", "end round", "out seat(1)", "reverse"])
def test_an_effect_that_steers_a_round_is_refused_in_the_top_level_setup(tmp_path, effect):
    path = tmp_path / "game.yaml"
    path.write_text(SETUP_FLOW.replace("EFFECT", effect), encoding="utf-8")
    _, diagnostics = validate_file(path)
    found = [(d.code, d.span.line, d.span.column) for d in diagnostics]
    assert ("RE275", 15, 5) in found, found
    assert "cannot take effect in the top-level setup" in diagnostics[0].message
    # the goto leads nowhere: the phase stays unreachable, as it is in play
    assert ("RE224", 25, 3) in found


@pytest.mark.parametrize("effect", ["end game", "turn to seat(1)", "reveal hand[seat(1)] to seat(0)"])
def test_an_effect_that_works_in_the_top_level_setup_is_allowed(tmp_path, effect):
    path = tmp_path / "game.yaml"
    path.write_text(SETUP_FLOW.replace("EFFECT", effect), encoding="utf-8")
    _, diagnostics = validate_file(path)
    assert [d.code for d in diagnostics] == ["RE224"]


def test_a_goto_in_the_round_setup_or_a_move_still_reaches_its_phase(tmp_path):
    for text in (
        SETUP_FLOW.replace("  - EFFECT\n", "  - turn to seat(0)\n").replace(
            "  setup:\n", "  setup:\n    - goto bonus\n", 1
        ),
        SETUP_FLOW.replace("  - EFFECT\n", "  - turn to seat(0)\n").replace("move card to pile", "goto bonus"),
    ):
        path = tmp_path / "game.yaml"
        path.write_text(text, encoding="utf-8")
        assert validate_file(path)[1] == []


def test_a_setup_effect_in_a_block_or_a_called_procedure_is_refused_at_its_place(tmp_path):
    procedure = (
        "procedures:\n  start:\n    effects:\n      - if: size(stock) > 0\n        then: [reverse, goto bonus]\n"
    )
    setup = "  - for: p in players\n    do: [goto bonus]\n  - start()\n"
    text = SETUP_FLOW.replace("  - EFFECT\n", setup).replace("round:\n", procedure + "round:\n", 1)
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    _, diagnostics = validate_file(path)
    found = [(d.code, d.span.line, d.span.column, d.message) for d in diagnostics]
    assert [f[:3] for f in found] == [("RE275", 16, 10), ("RE275", 17, 5), ("RE275", 17, 5), ("RE224", 32, 3)], found
    assert "procedure 'start' says 'reverse' (line 22)" in found[1][3] + found[2][3]
    # the same procedure called from a move reaches the phase
    path.write_text(text.replace("move card to pile", "start()"), encoding="utf-8")
    assert [d.code for d in validate_file(path)[1]] == ["RE275", "RE275", "RE275"]


@pytest.mark.parametrize("optimize", [False, True])
def test_end_phase_is_refused_in_round_setup_where_no_phase_has_begun(tmp_path, optimize):
    """It was passed over: the round's first phase was played all the same."""
    path = tmp_path / "game.yaml"
    ending = "    - deal 3 of stock to hand from seat(0)\n    - if: round >= 1\n      then: [EFFECT]\n"
    text = BASE.replace("    - deal 3 of stock to hand from seat(0)\n", ending, 1)
    path.write_text(text.replace("EFFECT", "end phase"), encoding="utf-8")
    found = [(d.code, d.span.line, d.span.column, d.message) for d in validate_file(path)[1]]
    assert found == [
        ("RE275", 20, 14, "'end phase' cannot take effect in round.setup: the round's first phase starts after it")
    ]
    # end round does end the round there: the match of one round is over before any decision
    path.write_text(text.replace("EFFECT", "end round"), encoding="utf-8")
    assert validate_file(path)[1] == []
    assert rulesengine.make_game(path, optimize=optimize).new_initial_state(seed=1).is_terminal()


@pytest.mark.parametrize("optimize", [False, True])
def test_turn_to_and_end_game_in_the_top_level_setup_take_effect_in_both_modes(tmp_path, optimize):
    from rulesengine.api import make_game

    path = tmp_path / "game.yaml"
    path.write_text(
        SETUP_FLOW.replace("EFFECT", "turn to seat(1)").replace("  bonus:\n    moves: [lay]\n", ""), "utf-8"
    )
    assert make_game(str(path), optimize=optimize).new_initial_state(seed=1).current_player() == 1
    path.write_text(SETUP_FLOW.replace("EFFECT", "end game").replace("  bonus:\n    moves: [lay]\n", ""), "utf-8")
    assert make_game(str(path), optimize=optimize).new_initial_state(seed=1).is_terminal()


def test_a_text_options_min_and_max_bound_its_length(tmp_path):
    """Pan's word may not be empty: a match with an empty word ended after its first deal,
    everyone a loser of a word of no letters."""
    with pytest.raises(rulesengine.OptionError, match="option 'word' takes at least 1 character"):
        rulesengine.make_game("pan", options={"word": ""})
    assert rulesengine.make_game("pan", options={"word": "P"}).options["word"] == "P"
    pan = (ROOT / "rulesets" / "pan.yaml").read_text(encoding="utf-8")
    short = pan.replace("    min: 1      ", "    max: 2      ")
    assert short != pan
    path = tmp_path / "short.yaml"
    path.write_text(short, encoding="utf-8")
    _, diagnostics = validate_file(path)
    (problem,) = diagnostics
    assert problem.code == "RE211" and "the default 'PAN' (3 characters) of option 'word'" in problem.message
    path.write_text(short.replace("default: PAN", "default: PA"), encoding="utf-8")
    assert validate_file(path)[1] == []
    with pytest.raises(rulesengine.OptionError, match="option 'word' takes at most 2 character"):
        rulesengine.make_game(path, options={"word": "PAN"})


# ---- descriptions ------------------------------------------------------------------------------

# Where each kind of section that takes a description sits in BASE, to give it one.
DESCRIBED = {
    kind: (old, new.replace("zz: 1", "description: VALUE"))
    for kind, (old, new) in PLACES.items()
    if "description" in shape.SECTIONS[kind].keys
}


def errors(tmp_path: Path, text: str, *changes: tuple[str, str]) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diagnostics_of(tmp_path, text, *changes) if d.severity == "error"]


def test_every_kind_with_a_description_is_tried():
    assert set(DESCRIBED) == {"option", "zone", "variable", "phase", "move", "procedure", "trigger"}


@pytest.mark.parametrize("kind", sorted(DESCRIBED))
@pytest.mark.parametrize("value", ["[a, b]", "{a: b}", "true", "7", "1.5"])
def test_a_description_that_is_not_a_text_is_refused_as_at_the_top_level(tmp_path, kind, value):
    old, new = DESCRIBED[kind]
    found = errors(tmp_path, BASE, (old, new.replace("VALUE", value)))
    assert [code for code, _ in found] == ["RE205"], found
    assert found[0][1].startswith(f"the description of {kind} '") and found[0][1].endswith("' must be a text")
    top = errors(tmp_path, BASE, ("name: Checker game\n", f"name: Checker game\ndescription: {value}\n"))
    assert top == [("RE205", "'description' must be a text")]


@pytest.mark.parametrize("kind", sorted(DESCRIBED))
@pytest.mark.parametrize("value", ["What it is for.", "''", "null", ""])
def test_a_description_may_be_a_text_or_left_empty(tmp_path, kind, value):
    old, new = DESCRIBED[kind]
    assert errors(tmp_path, BASE, (old, new.replace("VALUE", value))) == []


# ---- a refused option value says nothing more ---------------------------------------------------

WITH_OPTION = BASE.replace("zones:\n", "options:\n  target: OPTION\nzones:\n", 1).replace(
    "  until: round >= 1\n", "  until: round >= target\n"
)


@pytest.mark.parametrize(
    "option",
    [
        "{default: 3.5, choices: [1, 3, 5]}",  # the choices say it is a number
        "{default: 3.5, type: int}",
        "{default: 3.5}",  # nothing says what was meant: its uses are not checked
        "{default: [3]}",
        "{default: 3.5, choices: [1, a]}",
        "{default: 1.5, choices: [1, 2.5]}",
    ],
)
def test_an_option_default_that_is_refused_is_the_only_error(tmp_path, option):
    found = errors(tmp_path, WITH_OPTION, ("OPTION", option))
    assert found[0] == ("RE205", "the default of 'target' must be a text or a whole number or true or false")
    assert all(code == "RE205" and "'target'" not in message for code, message in found[1:]), found  # only choices
    assert "None" not in str(found)


def test_an_option_typed_by_its_choices_is_checked_at_its_uses(tmp_path):
    found = errors(
        tmp_path,
        WITH_OPTION,
        ("OPTION", "{default: 3.5, choices: [a, b]}"),
        ("round >= target", "round >= 1 and target"),
    )
    assert [code for code, _ in found] == ["RE205", "RE301"], found  # a text where a truth value belongs


@pytest.mark.parametrize(
    "option, code",
    [
        ("{choices: [1, 3]}", "RE208"),
        ("{default: three, type: int}", "RE210"),
        ("{default: 3, type: integer}", "RE209"),
        ("{default: 1:40}", "RE205"),
        ("{default: 3, choices: [a, b]}", "RE210"),
    ],
)
def test_the_uses_of_an_option_reported_at_its_declaration_say_nothing_more(tmp_path, option, code):
    found = errors(tmp_path, WITH_OPTION, ("OPTION", option))
    assert {c for c, _ in found} == {code}, found  # not RE310 "unknown name" nor RE301 at `round >= target`


def test_a_variant_s_refused_option_default_is_reported_in_the_variant_alone(tmp_path):
    (tmp_path / "base.yaml").write_text(WITH_OPTION.replace("OPTION", "{default: 3, choices: [1, 3, 5]}"))
    variant = tmp_path / "variant.yaml"
    for default in ("0.5", "null"):
        variant.write_text(f"extends: base.yaml\noptions: {{target: {{default: {default}}}}}\n", encoding="utf-8")
        found = [(Path(d.span.file).name, d.code) for d in validate_file(variant)[1]]
        assert found == [("variant.yaml", "RE205" if default == "0.5" else "RE208")]


@pytest.mark.parametrize("choices", ["[true, false]", "[yes, no, yes]", "[1.5, 1.5]", "[[a], [a]]"])
def test_refused_choices_are_not_compared_with_each_other(tmp_path, choices):
    found = errors(tmp_path, WITH_OPTION, ("OPTION", f"{{default: 1, choices: {choices}}}"))
    assert found and {code for code, _ in found} == {"RE205"}, found  # not RE274 "list None twice"


def test_a_default_among_refused_choices_is_not_called_missing_from_them(tmp_path):
    found = errors(tmp_path, WITH_OPTION, ("OPTION", "{default: 2, choices: [1, 2.0, 3]}"))
    assert [code for code, _ in found] == ["RE205"], found  # not RE211: 2.0 may have meant 2


# ---- a list written as one value --------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, what",
    [
        (('ranks: ["1", "2", "3", "4", "5", "6"]', "ranks: A"), "the ranks of deck 'standard'"),
        (("suits: [hearts, spades]", "suits: hearts"), "the suits of deck 'standard'"),
        (("moves: [lay]", "moves: lay"), "the moves of phase 'play'"),
    ],
)
def test_a_list_written_as_one_name_is_reported_once(tmp_path, change, what):
    found = [(d.code, d.message, d.hint) for d in diagnostics_of(tmp_path, BASE, change)]
    name = change[1].split(": ")[1]
    assert found == [("RE205", f"{what} must be a list", f"e.g. [{name}]")]  # not RE212, RE222, RE227 nor RE236


@pytest.mark.parametrize(
    "change, missing",
    [
        (('ranks: ["1", "2", "3", "4", "5", "6"]', "ranks: []"), "no ranks"),
        (('    ranks: ["1", "2", "3", "4", "5", "6"]\n', ""), "no ranks"),
        (("suits: [hearts, spades]", "suits: {}"), "no suits"),
    ],
)
def test_a_deck_without_suits_or_ranks_says_which(tmp_path, change, missing):
    found = errors(tmp_path, BASE, change)
    assert found == [("RE212", f"deck 'standard' needs suits and ranks: it has {missing}")]


# ---- the format marker's value as the file writes it --------------------------------------------


@pytest.mark.parametrize(
    "written, shown",
    [("", "null"), ("null", "null"), ("true", "true"), ("false", "false"), ("1.0", "1.0"), ('"1"', "'1'"), ("0", "0")],
)
def test_a_marker_that_is_not_a_version_is_shown_as_written(tmp_path, written, shown):
    found = errors(tmp_path, f"rulesengine: {written}\n" + BASE)
    assert found == [
        ("RE041", f"'rulesengine' takes the version of the rule-file format, a whole number from 1, not {shown}")
    ]


@pytest.mark.parametrize("visibility, seen_by", [("owner", "its owner"), ("team", "its owner's team")])
def test_a_shared_zone_seen_by_an_owner_names_who_sees_it(tmp_path, visibility, seen_by):
    found = diagnose(tmp_path, BASE, ("pile: {visibility: all}", f"pile: {{visibility: {visibility}}}"))
    assert ("RE217", f"zone 'pile' is seen by {seen_by} but belongs to no player") in found


def test_a_variant_giving_losers_over_its_bases_winners_is_told_how_to_remove_them(tmp_path):
    with_winners = BASE.replace("  until: round >= 1\n", "  until: round >= 1\n  winners: players\n")
    (tmp_path / "base.yaml").write_text(with_winners, encoding="utf-8")
    variant = tmp_path / "variant.yaml"
    variant.write_text("extends: base.yaml\nmatch:\n  losers: players\n", encoding="utf-8")
    [found] = [d for d in validate_file(variant)[1] if d.code == "RE234"]
    assert "'winners: null'" in (found.hint or "")
    variant.write_text("extends: base.yaml\nmatch:\n  winners: null\n  losers: players\n", encoding="utf-8")
    assert not [d for d in validate_file(variant)[1] if d.code == "RE234"]


@pytest.mark.parametrize(("shown", "bad"), [("{stock}", True), ("{size(stock)}", False), ("{top(stock)}", False)])
def test_a_logged_zone_costs_a_step_for_each_of_its_cards(tmp_path, shown, bad):
    """A log line writes a zone out card by card: logging a deck of 5,000 cards for each of
    its cards at every step passes the bound (it wrote gigabytes of log before it was counted)."""
    rules = tmp_path / "game.yaml"
    rules.write_text(
        "rulesengine: 1\nname: Big log\nplayers: {min: 2, max: 2}\n"
        "decks:\n  d:\n    suits: [a, b, c, d, e]\n    ranks: [r1, r2, r3, r4, r5, r6, r7, r8, r9, r10]\n"
        "    zone: stock\n    copies: 100\n"
        "zones:\n  stock: {visibility: all}\n  table: {visibility: all}\n"
        "phases:\n  play:\n    moves: [go]\n"
        "moves:\n  go:\n    effects:\n      - move top(stock) to table\n"
        f'      - for: c in stock\n        do:\n          - log "{(shown + " ") * 5}"\n'
        'match:\n  until: "true"\n',
        encoding="utf-8",
    )
    _, diagnostics = validate_file(rules)
    assert ("RE248" in [d.code for d in diagnostics]) == bad, diagnostics
