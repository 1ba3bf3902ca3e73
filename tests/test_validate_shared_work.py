"""What `validate` works out once and shares gives what working it out each time gives: the
facts of a game setting its scenario tests read again and again."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from rulesengine import api, stays
from rulesengine.check_fold import option_values
from rulesengine.diagnostics import RulesEngineError
from rulesengine.lower import lower
from rulesengine.scenario_file import _Reader
from rulesengine.scenario_names import names_of, start_of
from tests.test_scenario_problems import BOOM

ROOT = Path(__file__).resolve().parent.parent
RULE_FILES = sorted(
    [p for p in (ROOT / "rulesets").glob("*.yaml")] + [p for p in (ROOT / "examples").glob("*.yaml")],
    key=str,
)


def _settings(ruleset, most: int = 12) -> list[dict[str, object]]:
    """Up to `most` settings of a ruleset's options: every value of each that has few."""
    choices = [[(o.name, v) for v in (option_values(o) or (o.default,))] for o in ruleset.options]
    return [dict(pairs) for pairs in itertools.islice(itertools.product(*choices), most)]


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_whether_a_setting_puts_a_player_out_is_what_its_rules_say(path):
    ruleset = api.load_ruleset(path)
    for options in _settings(ruleset):
        plain = stays.puts_out(lower(ruleset, options))
        assert stays.setting_puts_out(ruleset, options) is plain
        assert stays.setting_puts_out(ruleset, dict(reversed(list(options.items())))) is plain  # kept: the same


def test_a_setting_is_told_apart_by_its_values_and_their_types():
    ruleset = api.load_ruleset(ROOT / "rulesets" / "pan.yaml")
    for options in _settings(ruleset):
        widened = {name: (int(value) if isinstance(value, bool) else value) for name, value in options.items()}
        assert stays.setting_puts_out(ruleset, widened) is stays.puts_out(lower(ruleset, widened))
    # a value that cannot be a key is worked out each time, as before
    odd = {**_settings(ruleset)[0], "unused": [1]}
    assert stays.setting_puts_out(ruleset, odd) is stays.puts_out(lower(ruleset, odd))


@pytest.mark.parametrize("optimize", [False, True])
@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_the_start_a_position_reads_is_that_of_a_new_match(path, optimize):
    ruleset = api.load_ruleset(path)
    game = api.make_game(ruleset, optimize=optimize)
    for seed in (0, 1, 7, 0):  # 0 again: found kept
        state = game.new_initial_state(seed=seed)
        assert start_of(game, seed) == (tuple(state.vars), state.round_number)


def test_a_match_that_cannot_start_says_why_each_time(tmp_path):
    (tmp_path / "boom.yaml").write_text(BOOM, encoding="utf-8")
    game = api.make_game(api.load_ruleset(tmp_path / "boom.yaml"), optimize=False)
    with pytest.raises(RulesEngineError) as raised:
        game.new_initial_state(seed=3)
    assert start_of(game, 3) == str(raised.value) == start_of(game, 3)


def test_the_names_of_a_game_are_made_once_per_file_and_report_to_it():
    game = api.make_game(api.load_ruleset(ROOT / "rulesets" / "pan.yaml"), optimize=False)
    reader, other = _Reader("a.tests.yaml"), _Reader("b.tests.yaml")
    names = names_of(reader, game)
    assert names_of(reader, game) is names and names.reader is reader and names.game is game
    assert names_of(other, game) is not names and names_of(other, game).reader is other


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_the_parts_of_an_expression_are_those_ir_gives(path):
    # The whole-file checks read the parts of an expression with each class's fields looked up
    # once: the same parts, in the same order, for every expression of every shipped ruleset.
    import attrs

    from rulesengine import ir
    from rulesengine.check_cost import expressions_of

    waiting: list[object] = [api.load_ruleset(path)]
    seen: set[int] = set()
    expressions = statements = 0
    while waiting:
        value = waiting.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, ir.Expr):
            expressions += 1
            each_field = [getattr(value, f.name) for f in attrs.fields(type(value))]
            parts = [v for v in each_field if isinstance(v, ir.Expr) or isinstance(v, tuple)]
            plain = [p for v in parts for p in (v if isinstance(v, tuple) else (v,)) if isinstance(p, ir.Expr)]
            assert all(a is b for a, b in zip(ir.children(value), plain, strict=True))
        if isinstance(value, ir.Stmt) and not isinstance(value, ir.Log):
            statements += 1
            each_field = [getattr(value, f.name) for f in attrs.fields(type(value))]
            written = [v for v in each_field if isinstance(v, ir.Expr)]
            written += [v for t in each_field if isinstance(t, tuple) for v in t if isinstance(v, ir.Expr)]
            assert sorted(map(id, expressions_of(value))) == sorted(map(id, written))
        if isinstance(value, (tuple, list)):
            waiting.extend(value)
        elif isinstance(value, dict):
            waiting.extend(value.values())
        elif attrs.has(type(value)):
            waiting.extend(getattr(value, field.name) for field in attrs.fields(type(value)))
    assert expressions > 50 and statements > 5


def _can_run_walking_each_field(value, kind) -> bool:
    """`stays.can_run` as it read every field of every value through attrs each time."""
    import attrs

    from rulesengine import ir

    if isinstance(value, kind):
        return True
    if isinstance(value, ir.Expr):
        return False
    if isinstance(value, ir.If) and isinstance(value.condition, ir.Const):
        return _can_run_walking_each_field(value.then if value.condition.value else value.otherwise, kind)
    if isinstance(value, tuple):
        return any(_can_run_walking_each_field(item, kind) for item in value)
    if attrs.has(type(value)):
        return any(_can_run_walking_each_field(getattr(value, f.name), kind) for f in attrs.fields(type(value)))
    return False


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_what_can_run_is_found_as_walking_every_field_finds_it(path):
    from rulesengine import ir

    ruleset = api.load_ruleset(path)
    kinds = [ir.Out, ir.Reveal, ir.TurnTo, ir.Shuffle, ir.Move, (ir.Out, ir.Reveal)]
    for options in _settings(ruleset, most=4):
        lowered = lower(ruleset, options)
        for value in (lowered, *lowered.phases, *lowered.moves):
            for kind in kinds:
                assert stays.can_run(value, kind) is _can_run_walking_each_field(value, kind)


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_a_computed_card_attribute_is_what_evaluating_it_afresh_for_each_card_gives(path):
    from rulesengine.reference import ReferenceCompiler
    from rulesengine.reference_layout import attribute_tables

    ruleset = api.load_ruleset(path)
    for options in _settings(ruleset, most=3):
        values = api.resolve_options(ruleset, options)
        compiler = ReferenceCompiler(ruleset, values, ruleset.default_players)
        evaluator = compiler.evaluator
        afresh = attribute_tables(
            ruleset, compiler.cards, lambda expression, env, evaluator=evaluator: evaluator.expr(expression)(None, env)
        )
        assert compiler.attributes == afresh
