"""The checker's part for results as numbers: `match.returns`, a declared sum, bounds, `tie`.

A declared sum and the bounds are constants of a game setting (options and literals), so
they are typed in the scope of a variable's default; the engine checks them against the
returns at the end of every match (`results.py`).
"""

from __future__ import annotations

from . import ir
from .check_base import CheckerBase, Scope
from .source import Map

TIES = ("draw", "win")


class ResultsReader(CheckerBase):
    def read_results(self, spec: Map, winners: ir.Expr | None, losers: ir.Expr | None) -> ir.Results | None:
        keys = ("returns", "zero_sum", "constant_sum", "min", "max", "tie")
        if not any(key in spec.entries for key in keys):
            return None
        returns = self.optional_expr(spec.get("returns"), Scope(), ir.INT)
        if "returns" in spec.entries and ("winners" in spec.entries or "losers" in spec.entries):
            self.error(
                "RE263",
                "give either 'returns' or 'winners'/'losers', not both",
                spec.key_spans["returns"],
                hint="'returns' gives each player a number; winners and losers give +1 and -1",
            )
        constant = Scope(context="default")
        total = self.optional_expr(spec.get("constant_sum"), constant, ir.INT)
        zero_sum = self.scalar(spec.get("zero_sum"), (bool,), "'zero_sum'") is True
        if zero_sum:
            if "constant_sum" in spec.entries:
                self.error("RE263", "give either 'zero_sum' or 'constant_sum', not both", spec.key_spans["zero_sum"])
            total = ir.Const(ir.INT, self.at(spec, "zero_sum"), 0)
        minimum = self.optional_expr(spec.get("min"), constant, ir.INT)
        maximum = self.optional_expr(spec.get("max"), constant, ir.INT)
        tie = self.scalar(spec.get("tie"), (str,), "'tie'")
        if tie is not None and tie not in TIES:
            self.error("RE264", f"unknown tie '{tie}'", self.at(spec, "tie"), hint="a tie is 'draw' or 'win'")
        elif tie is not None and "returns" in spec.entries:
            self.error(
                "RE263",
                "'tie' says what everybody winning means, so it goes with 'winners' or 'losers', not 'returns'",
                self.at(spec, "tie"),
            )
        if "returns" in spec.entries and not ("min" in spec.entries and "max" in spec.entries):
            self.warn(
                "RE265",
                "'returns' without 'min' and 'max': adapters cannot tell the range of a player's result",
                spec.key_spans["returns"],
                hint="declare the lowest and highest return, e.g. min: -100 and max: 100",
            )
        return ir.Results(returns, total, zero_sum, minimum, maximum, tie == "win", spec.span)
