"""Each stage of the pipeline on its own: load, parse, check, compile."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesengine
from rulesengine import ir
from rulesengine.api import validate_file
from rulesengine.diagnostics import RuleFileError, render_text
from rulesengine.parse import parse_expression, parse_statements
from rulesengine.source import Map, Scalar, load_yaml

ROOT = Path(__file__).resolve().parent.parent
MINIMAL = textwrap.dedent(
    """\
    name: Highest card
    players: {min: 2, max: 4}
    decks:
      standard:
        suits: [hearts, spades]
        ranks: ["2", "3", "4", "5"]
        zone: stock
    zones:
      stock: {visibility: nobody}
      hand: {per: player, visibility: owner}
      table: {visibility: all}
    variables:
      score: {type: int, per: player}
      best: {type: player}
    round:
      setup:
        - move table to stock
        - shuffle stock
        - deal 1 of stock to hand from seat(0)
      end:
        - score[best] += 1
    phases:
      play:
        moves: [lay]
        until: size(table) == num_players
    moves:
      lay:
        params: {card: "hand[me]"}
        effects:
          - if: empty(table) or card.order > table.max(c, c.order)
            then: [best = me]
          - move card to table
    match:
      until: round == 3
      winners: players.filter(p, score[p] == players.max(q, score[q]))
    """
)


def write(tmp_path: Path, text: str, name: str = "game.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems(tmp_path: Path, text: str) -> list:
    _, found = validate_file(write(tmp_path, text))
    return found


# ---- load ------------------------------------------------------------------------------


def test_yaml_values_keep_their_positions():
    tree = load_yaml("a:\n  b: hello\n  c: |\n    one\n    two\n", "f.yaml")
    assert isinstance(tree, Map)
    inner = tree.get("a")
    assert isinstance(inner, Map)
    b = inner.get("b")
    assert isinstance(b, Scalar) and (b.span.line, b.span.column) == (2, 6)
    block = inner.get("c")
    assert block.locate(4).line == 5  # "two" is on the file's fifth line
    assert block.locate(4).column == 5


def test_duplicate_keys_are_errors_with_both_places():
    with pytest.raises(RuleFileError) as caught:
        load_yaml("name: a\nname: b\n", "dup.yaml")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "RE002" and diagnostic.span.line == 2
    assert "line 1" in diagnostic.message


def test_alias_bombs_are_refused():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in "bcdefgh":
        previous = chr(ord(level) - 1)
        bomb += (
            f"{level}: &{level} [*{previous}, *{previous}, *{previous}, *{previous}, *{previous}, "
            f"*{previous}, *{previous}, *{previous}, *{previous}, *{previous}]\n"
        )
    with pytest.raises(RuleFileError) as caught:
        load_yaml(bomb, "bomb.yaml")
    assert caught.value.diagnostics[0].code == "RE007"


def test_only_safe_yaml_is_loaded():
    with pytest.raises(RuleFileError):
        load_yaml("x: !!python/object/apply:os.system ['echo hacked']\n", "evil.yaml")


# ---- parse -----------------------------------------------------------------------------


def test_expressions_parse_with_file_positions():
    node = load_yaml("legal: card.rank >= top(pile).rank\n", "f.yaml").get("legal")
    tree = parse_expression(node)
    assert tree.span.line == 1 and tree.span.column == 8


def test_a_syntax_error_points_into_the_yaml_file(tmp_path):
    text = MINIMAL.replace("until: size(table) == num_players", "until: size(table) == == num_players")
    (diagnostic,) = [p for p in problems(tmp_path, text) if p.severity == "error"]
    line_number = text.splitlines().index("    until: size(table) == == num_players") + 1
    assert diagnostic.code == "RE101"
    assert (diagnostic.span.line, diagnostic.span.column) == (line_number, 27)


def test_an_error_in_a_block_scalar_points_at_its_line(tmp_path):
    text = MINIMAL.replace(
        '  lay:\n    params: {card: "hand[me]"}',
        '  lay:\n    legal: |\n      size(hand[me]) > 0\n        and car.order > 0\n    params: {card: "hand[me]"}',
    )
    (diagnostic,) = [p for p in problems(tmp_path, text) if p.severity == "error"]
    assert diagnostic.code == "RE310" and "did you mean 'card'" in diagnostic.hint
    assert text.splitlines()[diagnostic.span.line - 1].strip() == "and car.order > 0"
    assert diagnostic.span.column == text.splitlines()[diagnostic.span.line - 1].index("car") + 1


def test_effect_blocks_parse_into_statements():
    node = load_yaml("e:\n  - if: x > 1\n    then:\n      - reverse\n    else: [end round]\n", "f.yaml").get("e")
    statements, found = parse_statements(node)
    assert not found and type(statements[0]).__name__ == "If"


# ---- check -----------------------------------------------------------------------------


def test_the_minimal_game_is_valid(tmp_path):
    assert problems(tmp_path, MINIMAL) == []


def test_every_error_of_a_file_is_reported(tmp_path):
    text = MINIMAL.replace("move card to table", "move card to tabel").replace("round == 3", "rund == 3")
    found = problems(tmp_path, text)
    assert {p.code for p in found} == {"RE310"}
    assert len(found) == 2
    assert {p.hint for p in found} == {"did you mean 'table'?", "did you mean 'round'?"}


def test_types_are_checked_before_anything_runs(tmp_path):
    found = problems(tmp_path, MINIMAL.replace("until: size(table) == num_players", "until: size(table) + 1"))
    assert [p.code for p in found] == ["RE301"]
    assert "expected bool, found int" in found[0].message


def test_unknown_keys_get_a_suggestion(tmp_path):
    found = problems(
        tmp_path,
        MINIMAL.replace("    visibility: nobody}", "    visiblity: nobody}").replace(
            "stock: {visibility: nobody}", "stock: {visiblity: nobody}"
        ),
    )
    assert found and found[0].code == "RE201" and found[0].hint == "did you mean 'visibility'?"


def test_ranks_are_named_by_literals(tmp_path):
    found = problems(
        tmp_path,
        MINIMAL.replace(
            "move card to table", "move card to table\n      - if: card.rank == 7\n        then: [reverse]"
        ),
    )
    assert [p.code for p in found] == ["RE308"]
    assert "there is no rank '7'" in found[0].message


def test_the_checked_ruleset_is_immutable():
    ruleset = rulesengine.load_ruleset("pan")
    assert isinstance(ruleset, ir.Ruleset)
    with pytest.raises(AttributeError):
        ruleset.name = "other"  # type: ignore[misc]


def test_definitions_cannot_recurse(tmp_path):
    text = MINIMAL.replace("variables:", "define:\n  loop(x): loop(x) + 1\nvariables:").replace(
        "until: size(table) == num_players", "until: loop(1) > 0"
    )
    assert "RE312" in {p.code for p in problems(tmp_path, text)}


def test_extends_merges_and_overrides():
    variant = rulesengine.load_ruleset("pan-reversed-spades")
    options = {o.name: o.default for o in variant.options}
    assert options["reversed_spades"] is True and options["word"] == "PAN"
    assert [m.name for m in variant.moves] == [m.name for m in rulesengine.load_ruleset("pan").moves]


def test_circular_extends_is_an_error(tmp_path):
    write(tmp_path, "extends: b.yaml\nname: a\n", "a.yaml")
    write(tmp_path, "extends: a.yaml\nname: b\n", "b.yaml")
    _, found = validate_file(tmp_path / "a.yaml")
    assert [p.code for p in found] == ["RE013"]


def test_a_name_a_variant_gives_twice_is_reported_in_the_variant(tmp_path):
    # Pan has a variable `dealer`: the variant's option of that name is the clash, and only
    # the variant can change it (Pan's own line is named in the message)
    path = write(tmp_path, "extends: pan\nname: v\noptions:\n  dealer: {default: 1}\n", "v.yaml")
    _, found = validate_file(path)
    clash = [p for p in found if p.code == "RE242"]
    assert [(Path(p.span.file).name, p.span.line, p.span.column) for p in clash] == [("v.yaml", 4, 3)]
    assert "an option" in clash[0].message and "pan.yaml:42:3" in clash[0].message


@pytest.mark.parametrize(
    "change,code,column",
    [
        ("players: {max: 2}", "RE207", 16),  # Pan's default of 3 players is outside the new range
        ("options:\n  triples: {choices: [nines_only]}", "RE211", 22),  # its default is no longer a choice
    ],
)
def test_a_value_a_variant_narrows_is_reported_in_the_variant(tmp_path, change, code, column):
    path = write(tmp_path, f"extends: pan\nname: v\n{change}\n", "v.yaml")
    _, found = validate_file(path)
    assert [(p.code, Path(p.span.file).name, p.span.column) for p in found] == [(code, "v.yaml", column)]


def test_rendered_errors_show_the_line_and_a_caret(tmp_path):
    path = write(tmp_path, MINIMAL.replace("move card to table", "move card to tabel"))
    _, found = validate_file(path)
    text = render_text(found, {})
    assert re.search(rf"{re.escape(str(path))}:\d+:\d+: error\[RE310\]: unknown name 'tabel'", text)
    assert "move card to tabel" in text and "^^^^^" in text


# ---- compile and run -------------------------------------------------------------------


def test_nothing_is_parsed_while_a_game_runs(monkeypatch):
    game = rulesengine.make_game("pan", players=3, options={"word": "P"})
    import lark

    def refuse(*args, **kwargs):
        raise AssertionError("parsed at run time")

    monkeypatch.setattr(lark.Lark, "parse", refuse)
    from tests.game_checks import play_random

    assert play_random(game.new_initial_state(seed=3), 3).is_terminal()


def test_options_become_constants_of_the_compiled_game():
    plain = rulesengine.make_game("pan", players=3)
    other = rulesengine.make_game("pan", players=3, options={"word": "PANIC"})
    assert plain is not other and other.options["word"] == "PANIC"
    assert plain is rulesengine.make_game("pan", players=3)  # compiled once per setting


def test_the_engine_names_no_game():
    pattern = re.compile(r"\bpan\b|padan|padvinder", re.IGNORECASE)
    offenders = [str(p) for p in (ROOT / "rulesengine").rglob("*.py") if pattern.search(p.read_text())]
    assert offenders == []


def test_grammar_and_rulesets_are_package_data():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"grammar" = "rulesengine/_data/grammar"' in text
    assert '"rulesets" = "rulesengine/_data/rulesets"' in text


def test_definitions_see_their_parameters_not_the_locals_where_they_are_used(tmp_path):
    text = MINIMAL.replace("variables:", "define:\n  high: card.order > 1\nvariables:").replace(
        "move card to table", "move card to table\n      - if: high\n        then: [reverse]"
    )
    (found,) = problems(tmp_path, text)
    assert found.code == "RE310" and "pass 'card' as an argument" in found.hint
    fixed = text.replace("  high: card.order > 1", "  high(c): c.order > 1").replace("if: high", "if: high(card)")
    assert problems(tmp_path, fixed) == []


def test_a_list_of_literals_beside_a_rank_names_ranks(tmp_path):
    text = MINIMAL.replace(
        "move card to table", "move card to table\n      - if: card.rank in [2, 3]\n        then: [reverse]"
    )
    assert problems(tmp_path, text) == []
    (found,) = problems(tmp_path, text.replace("[2, 3]", "[2, 9]"))
    assert found.code == "RE308"


def test_defaults_cannot_read_the_game(tmp_path):
    text = MINIMAL.replace(
        "  score: {type: int, per: player}",
        "  base: {type: int, default: 3}\n  score: {type: int, per: player, default: base}",
    )
    assert [p.code for p in problems(tmp_path, text)] == ["RE309"]
    zone_valued = MINIMAL.replace(
        "  score: {type: int, per: player}", "  score: {type: int, per: player}\n  spot: {default: table}"
    )
    assert [p.code for p in problems(tmp_path, zone_valued)] == ["RE309"]


def test_bind_names_a_value_inside_an_expression(tmp_path):
    text = MINIMAL.replace(
        "until: size(table) == num_players", "until: size(table).bind(n, n == num_players and n > 0)"
    )
    assert problems(tmp_path, text) == []
    game = rulesengine.make_game(str(write(tmp_path, text)), players=3)
    state = game.new_initial_state(seed=2)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    assert state.round_number == 2  # the phase ended after three cards, as without bind
    wrong = MINIMAL.replace("until: size(table) == num_players", "until: size(table).bind(n)")
    assert [p.code for p in problems(tmp_path, wrong)] == ["RE311"]


def test_the_rule_file_in_the_readme_is_valid_and_plays(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## A first look at a rule file", 1)[1]
    text = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    path = write(tmp_path, text)
    assert validate_file(path)[1] == []
    from tests.game_checks import play_random

    state = play_random(rulesengine.make_game(str(path), players=3).new_initial_state(seed=1), 1)
    assert state.is_terminal() and sum(state.variables()["score"]) == 3


def test_macros_over_values_known_when_compiling_give_the_same_values(tmp_path):
    """any/all/count/sum over seats, suits or a constant range are written out value by value."""
    text = MINIMAL.replace(
        "  best: {type: player}\n",
        """  best: {type: player}
  counted: {type: int}
  one: {type: int}
  summed: {type: int}
  anyone: {type: bool}
  everyone: {type: bool}
  empty_any: {type: bool}
""",
    ).replace(
        "    - deal 1 of stock to hand from seat(0)\n",
        """    - deal 1 of stock to hand from seat(0)
    - counted = players.count(p, p != seat(0) and size(hand[p]) == 1)
    - one = range(1).count(i, i == 0)
    - summed = suits.sum(s, 10 if s == "spades" else 1) + range(2, 5).sum(i, i * i)
    - anyone = players.any(p, p == seat(num_players - 1))
    - everyone = players.all(p, size(hand[p]) == 1) and suits.all(s, s == "hearts" or s == "spades")
    - empty_any = range(0).any(i, i == 0)
""",
    )
    assert "counted = " in text
    assert problems(tmp_path, text) == []
    for players in (2, 4):
        state = rulesengine.make_game(str(write(tmp_path, text)), players=players).new_initial_state(seed=1)
        values = state.variables()
        assert values["counted"] == players - 1 and type(values["counted"]) is int
        assert values["one"] == 1 and type(values["one"]) is int
        assert values["summed"] == 11 + (4 + 9 + 16)
        assert values["anyone"] is True and values["everyone"] is True and values["empty_any"] is False


def test_a_zone_index_of_no_card_is_an_error_and_of_a_held_card_is_not(tmp_path):
    """`row[top(table).suit]` on an empty table names the place; `row[card.suit]` of a card
    from the hand needs no check."""
    with_row = MINIMAL.replace("  table: {visibility: all}\n", "  table: {visibility: all}\n  row: {per: suit}\n")
    held = with_row.replace(
        '    params: {card: "hand[me]"}\n', '    params: {card: "hand[me]"}\n    legal: empty(row[card.suit])\n'
    )
    game = rulesengine.make_game(str(write(tmp_path, held, "held.yaml")), players=2)
    assert game.new_initial_state(seed=1).legal_actions()
    nothing = with_row.replace(
        '    params: {card: "hand[me]"}\n', '    params: {card: "hand[me]"}\n    legal: empty(row[top(table).suit])\n'
    )
    assert "legal: empty(row[top(table).suit])" in nothing
    with pytest.raises(rulesengine.RulesEngineError, match=r"nothing\.yaml:\d+:\d+: an index is outside zone 'row'"):
        rulesengine.make_game(str(write(tmp_path, nothing, "nothing.yaml")), players=2).new_initial_state(seed=1)


def test_a_card_parameter_never_offers_no_card(tmp_path):
    """Candidates from a list may name "no card" (the top of an empty zone) or a card twice;
    neither becomes an action."""
    text = textwrap.dedent(
        """\
        name: Take the top
        players: {min: 2, max: 2}
        decks:
          standard: {suits: [hearts, spades], ranks: ["2", "3", "4"], zone: pile}
        zones:
          pile: {visibility: all}
          discard: {visibility: all}
        round:
          limit: {turns: 12}
        phases:
          play:
            moves: [take, wait]
            until: empty(pile)
        moves:
          take:
            params: {card: "[top(discard), top(pile), top(pile)]"}
            effects: [move card to discard]
          wait: {pass: true}
        match:
          until: round == 1
        """
    )
    game = rulesengine.make_game(str(write(tmp_path, text)), players=2)
    take = next(move for move in game.program.moves if move.name == "take")
    state = game.new_initial_state(seed=1)
    assert state.legal_actions() == [take.offset + state.zones[0][-1]]  # the discard is empty
    while not state.is_terminal():
        legal = state.legal_actions()
        tops = {zone[-1] for zone in state.zones if zone}
        assert sorted(legal) == sorted(take.offset + card for card in tops)
        state.apply_action(legal[-1])


# ---- positions inside multi-line scalars -------------------------------------------------

_LINE = st.text(alphabet="abxyz(){}+-<>=' ", min_size=1, max_size=16).filter(lambda t: t.strip() == t)


@settings(max_examples=100)
@given(lines=st.lists(_LINE, min_size=1, max_size=6), style=st.sampled_from(["|", "|-", ">", ">-  # note", '"', "'"]))
def test_every_character_of_a_scalar_maps_to_its_place_in_the_file(lines: list[str], style: str):
    """Literal, folded and quoted scalars over several lines, with escapes ('a' written as
    \\x61 in double quotes) and doubled quotes: each character of the value is located at
    the character of the file that stands for it (an escape at its backslash)."""
    if style == '"':
        text = 'k: "' + "\n   ".join(line.replace("a", "\\x61") for line in lines) + '"\n'
    elif style == "'":
        text = "k: '" + "\n   ".join(line.replace("'", "''") for line in lines) + "'\n"
    else:
        text = f"k: {style}\n" + "".join(f"  {line}\n" for line in lines)
    scalar = load_yaml(text, "f.yaml").get("k")
    rows = text.split("\n")
    for index, char in enumerate(scalar.value):
        if char in " \n":
            continue
        span = scalar.locate(index)
        found = rows[span.line - 1][span.column - 1]
        expected = "\\" if style == '"' and char == "a" else char
        assert found == expected, (index, char, span, text)
