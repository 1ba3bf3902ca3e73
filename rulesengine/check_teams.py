"""The checker's part for teams: the `teams` section, zones and variables `per: team`.

A zone `per: team` is a family with one pile per team, indexed by any member: the
checker writes `won[p]` as the pile of number `team(p)`. A variable `per: team` is laid
out per player, and an assignment through one member is copied to the others, so every
member always holds the team's value and reads need nothing special.
"""

from __future__ import annotations

from . import ir
from .check_base import CheckerBase
from .diagnostics import Span
from .limits import MAX_PLAYERS
from .source import Node, Scalar, Seq


class TeamReader(CheckerBase):
    def read_teams(self, min_players: int, max_players: int) -> None:
        node = self.doc.get("teams")
        if node is None:
            return
        if isinstance(node, Scalar) and node.value == "alternate":
            if min_players < 2:
                self.error(
                    "RE261",
                    f"'teams: alternate' needs at least 2 players; this game allows {min_players}",
                    node.span,
                    hint="raise players.min to 2",
                )
            self.teams = ir.Teams(True, (), node.span)
            return
        if not isinstance(node, Seq) or not node.items:
            self.error(
                "RE260",
                "'teams' must be 'alternate' or a list of teams, each a list of seat numbers",
                node.span,
                hint="e.g. teams: [[0, 2], [1, 3]]",
            )
            return
        seats: list[tuple[int, ...]] = []
        seen: set[int] = set()
        for team in node.items:
            members = self._team_seats(team, seen)
            if members is None:
                return
            seats.append(members)
        listed = len(seen)
        if seen != set(range(listed)):
            missing = min(set(range(listed)) - seen)
            self.error("RE260", f"the teams leave out seat {missing}", node.span, hint="list every seat from 0 once")
            return
        if (min_players, max_players) != (listed, listed):
            self.error(
                "RE261",
                f"the teams hold {listed} seats, but the game is for {min_players} to {max_players} players",
                node.span,
                hint=f"set players to {{min: {listed}, max: {listed}}}, or use 'teams: alternate'",
            )
        self.teams = ir.Teams(False, tuple(seats), node.span)

    def _team_seats(self, team: Node, seen: set[int]) -> tuple[int, ...] | None:
        if not isinstance(team, Seq) or not team.items:
            self.error("RE260", "each team must be a non-empty list of seat numbers", team.span)
            return None
        members = []
        for item in team.items:
            value = item.value if isinstance(item, Scalar) else None
            if type(value) is not int or not 0 <= value < MAX_PLAYERS:
                self.error("RE260", "a seat is a whole number from 0 (the first player)", item.span)
                return None
            if value in seen:
                self.error("RE260", f"seat {value} is in two teams", item.span)
                return None
            seen.add(value)
            members.append(value)
        return tuple(members)

    @property
    def num_teams(self) -> int:
        return 2 if self.teams is None or self.teams.alternate else len(self.teams.seats)

    def team_dimension(self, zone: str, position: int, span: Span) -> int:
        """A zone's `per: team` dimension: one pile per team, indexed by a member."""
        if self.teams is None:
            self.error("RE262", f"zone '{zone}' is kept per team, but the game declares no 'teams'", span)
        self.team_dims[zone] = self.team_dims.get(zone, frozenset()) | {position}
        return self.num_teams

    def check_team_variable(self, name: str, span: Span) -> None:
        if self.teams is None:
            self.error("RE262", f"variable '{name}' is kept per team, but the game declares no 'teams'", span)

    def team_index(self, zone: str, position: int, index: ir.Expr, span: Span) -> ir.Expr:
        """The index of a zone dimension: a member stands for the number of its team."""
        if position not in self.team_dims.get(zone, ()):
            return index
        member = self.coerce(index, ir.PLAYER, span)
        return ir.Call(ir.INT, member.span, "team", (member,))

    def team_assignment(self, assign: ir.Assign) -> ir.Stmt:
        """`v[p] op= e` for a variable per team: set p's value, then copy it to p's teammates."""
        player, span = assign.indices[0], assign.span
        slot = self.new_slot()
        mate = ir.Local(ir.PLAYER, span, "_teammate", slot)
        value = ir.VarRef(self.variables[assign.variable].type, span, assign.variable, (player,))
        copy = ir.Assign(span, assign.variable, (mate,), "=", value)
        mates = ir.Call(ir.list_of(ir.PLAYER), span, "teammates", (player,))
        # one statement where one was written: `if true` around the two
        return ir.If(span, ir.Const(ir.BOOL, span, True), (assign, ir.For(span, slot, mates, (copy,))), ())
