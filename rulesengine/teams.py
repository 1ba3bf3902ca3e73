"""Team membership from seats: the tables behind `team(p)`, `partner(p)` and `teammates(p)`.

Both execution paths (the code generator and the reference mode) and the engine's team
results read these tables, so a seat's team is defined once. Without a `teams` section
every player is a team of one.
"""

from __future__ import annotations

import attrs

from . import ir

NOBODY = -1


def team_count(teams: ir.Teams | None, num_players: int) -> int:
    """How many teams there are: known from the declaration alone (alternate: 2)."""
    if teams is None:
        return num_players
    return 2 if teams.alternate else len(teams.seats)


@attrs.frozen
class TeamTable:
    members: tuple[tuple[int, ...], ...]  # team number -> its seats, in seat order
    team_of: tuple[int, ...]  # seat -> team number

    def team(self, player: int) -> int:
        """The team number of a seat; -1 for nobody (an index with it is then out of range)."""
        return self.team_of[player] if 0 <= player < len(self.team_of) else -1

    def partner(self, player: int) -> int:
        """The other member of a two-player team; nobody for anyone else (and for nobody)."""
        if not 0 <= player < len(self.team_of):
            return NOBODY
        team = self.members[self.team_of[player]]
        return (team[1] if team[0] == player else team[0]) if len(team) == 2 else NOBODY

    def teammates(self, player: int) -> list[int]:
        """The other members of a seat's team, in seat order; none for nobody."""
        if not 0 <= player < len(self.team_of):
            return []
        return [q for q in self.members[self.team_of[player]] if q != player]


def may_see(visibility: str, owner: int, player: int, teams: TeamTable | None) -> bool:
    """Whether `player` may look into a zone: everyone, its owner, or (`team`) its owner's
    team. The engine's observation, the knowledge model and the adapters all ask this."""
    if visibility == "all":
        return True
    if visibility == "owner":
        return owner == player
    if visibility == "team":
        return owner >= 0 and teams is not None and teams.team(owner) == teams.team(player)
    return False


def team_table(teams: ir.Teams | None, num_players: int) -> TeamTable:
    """The teams of a game setting; the checker has made sure the seats fit the player count."""
    members: tuple[tuple[int, ...], ...]
    if teams is None:
        members = tuple((p,) for p in range(num_players))
    elif teams.alternate:
        members = (tuple(range(0, num_players, 2)), tuple(range(1, num_players, 2)))
    else:
        members = tuple(tuple(sorted(team)) for team in teams.seats)
    team_of = [0] * num_players
    for number, seats in enumerate(members):
        for seat in seats:
            team_of[seat] = number
    return TeamTable(members, tuple(team_of))
