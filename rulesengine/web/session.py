"""One playtest session: a match of a ruleset, its seats (people or bots), undo, a new match
with another seed, and the replay of the match.

People's seats are reached through links that carry an unguessable token; in hot-seat mode
one link controls every person's seat. The session changes only through `act`, `bot_act`,
`undo` and `new_match`; each change raises `version`, so an action sent for an older
position is refused as stale instead of being applied to a position its sender never saw.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Collection
from pathlib import Path
from typing import Any

from .. import agent_spec, api, replay
from ..agents import Agent
from ..diagnostics import RulesEngineError, printable, shown_value
from ..engine import Game, State
from ..limits import FRESH_SEEDS, MAX_BROWSER_SEED
from . import views

logger = logging.getLogger(__name__)


class Refused(Exception):
    """An action, undo or new match that is not allowed now; the session is unchanged."""


class Session:
    """A match played through the browser."""

    def __init__(
        self,
        game: Game,
        ruleset: str,
        seed: int,
        people: Collection[int] = (0,),
        opponents: str = "random",
        hot_seat: bool = False,
        record: Path | None = None,
    ):
        self.game = game
        self.ruleset = ruleset
        self.people = tuple(sorted(set(people)))
        if not self.people or any(not 0 <= seat < game.num_players for seat in self.people):
            raise ValueError(f"people's seats must be among 1..{game.num_players}")
        self.opponents = opponents
        self.hot_seat = hot_seat
        self.faces = views.card_faces(game.program)
        # token -> the seats it controls; one token for all people in hot-seat mode
        if hot_seat:
            self.tokens = {secrets.token_urlsafe(18): self.people}
        else:
            self.tokens = {secrets.token_urlsafe(18): (seat,) for seat in self.people}
        self.version = 0
        self.matches = 0
        self.revealed: int | None = None  # hot seat: the person whose view is on the screen
        self.record = record  # a folder where each finished match's replay is written
        self.recorded: list[Path] = []
        self.record_problem: str | None = None  # why the last finished match's replay was not written
        self._start(seed)

    # ---- the match ---------------------------------------------------------------------

    def _start(self, seed: int) -> None:
        self.seed = seed
        self.record_problem = None  # a notice of the last match's replay: this one is new
        self.bots: list[Agent | None] = agent_spec.make_opponents(
            self.opponents, self.game.num_players, self.people, seed
        )
        self.state: State = self.game.new_initial_state(seed=seed, record_log=True)
        self.movers: list[int] = []  # who made each decision, in order
        self.matches += 1
        self.version += 1

    @property
    def solo(self) -> bool:
        """One person against bots: undo and the seed are theirs to use."""
        return len(self.people) == 1

    def seats_of(self, token: str) -> tuple[int, ...] | None:
        """The seats a link's token controls, or None for a token the session never gave."""
        found = None
        for known, seats in self.tokens.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                found = seats
        return found

    def links(self) -> list[tuple[str, tuple[int, ...]]]:
        """Each link's path with the seats it controls."""
        return [(f"/play/{token}", seats) for token, seats in self.tokens.items()]

    def bot_to_move(self) -> Agent | None:
        state = self.state
        if state.is_terminal() or state.is_chance_node():
            return None
        return self.bots[state.current_player()]

    def act(self, seats: tuple[int, ...], action: Any, version: Any) -> None:
        """A person's action from a page that saw position `version`; Refused says why not."""
        state = self.state
        if state.is_terminal():
            raise Refused("the match is over; start a new match")
        if version != self.version:
            raise Refused("that move was for an earlier position; the page now shows the current one")
        mover = state.current_player()
        if mover not in seats:
            raise Refused(f"it is P{mover + 1}'s turn, not yours" if mover >= 0 else "nobody is to move")
        if self.hot_seat and self.revealed != mover:
            raise Refused(f"P{mover + 1}'s cards are not on the screen yet")
        choices = state.complete_actions()  # the ids the page was sent (views.moves)
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < len(choices):
            raise Refused(f"{shown_value(action)} is not a legal move now")
        self._apply(mover, choices[action][3])

    def bot_act(self, action: int, version: int) -> bool:
        """A bot's action chosen at position `version`: applied only if the position has not
        changed meanwhile (an undo or a new match)."""
        if version != self.version or self.bot_to_move() is None:
            return False
        self._apply(self.state.current_player(), (action,))
        return True

    def _apply(self, mover: int, steps: tuple[int, ...]) -> None:
        """Apply the ids of one decision (several for a choice the engine takes in steps)."""
        for step in steps:
            self.state.apply_action(step)
            self.movers.append(mover)  # one entry per id, as State.actions() lists them
        self.version += 1
        if self.record is not None and self.state.is_terminal():
            self._write_replay(self.record)

    def _write_replay(self, folder: Path) -> None:
        """Write the finished match's replay into `folder` (atomically, as `run --record` does)."""
        path = folder / f"{Path(self.ruleset).stem}-seed{self.seed}-match{self.matches}.json"
        try:
            replay.write(path, replay.record(self.state, self.ruleset, path))
        except RulesEngineError as error:  # (the rule file moved away, say) the match goes on; the pages say so
            # the pages, which may be other computers', are told what failed; the server's
            # terminal why, with the server's own paths
            logger.warning("the replay of match %d was not written: %s", self.matches, printable(str(error)))
            self.record_problem = f"the replay of match {self.matches} was not written (the server's terminal says why)"
        else:
            self.recorded.append(path)
            self.record_problem = None

    def undo(self, seats: tuple[int, ...]) -> None:
        """Take back the person's last move and the bots' moves after it (alone against bots only)."""
        if not self.solo:
            raise Refused("undo is only for one person playing against bots")
        if not set(seats) & set(self.people):
            raise Refused("this link plays no seat")
        person = self.people[0]
        if person not in self.movers:
            raise Refused("there is no move of yours to take back")
        keep = len(self.movers) - 1 - self.movers[::-1].index(person)
        actions = self.state.actions()[:keep]
        state = self.game.new_initial_state(seed=self.seed, record_log=True)
        for action in actions:
            state.apply_action(action)
        self.state = state
        self.movers = self.movers[:keep]
        self.version += 1

    def new_match(self, seats: tuple[int, ...], seed: Any = None) -> None:
        """Start again with `seed` (a fresh one when None). With several people, only once
        the match is over, so nobody ends the others' match, and with a fresh seed: the
        seed tells the whole deal, so whoever chose it would know every hand."""
        if not self.solo and not self.state.is_terminal():
            raise Refused("a new match can start when this one is over")
        if not self.solo and seed is not None:
            raise Refused(
                "with several people a new match takes a fresh seed: a chosen one would tell its chooser the deal"
            )
        if seed is None:
            seed = secrets.randbelow(FRESH_SEEDS)
        if isinstance(seed, bool) or not isinstance(seed, int) or not -MAX_BROWSER_SEED <= seed <= MAX_BROWSER_SEED:
            raise Refused(
                f"a seed is a whole number from {-MAX_BROWSER_SEED} to {MAX_BROWSER_SEED}, not {shown_value(seed)}"
            )
        self.revealed = None
        self._start(seed)

    # ---- what a seat is told -------------------------------------------------------------

    def seatshown_value(self, seats: tuple[int, ...]) -> int:
        """The seat whose view a link shows: its own, or in hot-seat mode the person to move
        (else the person who moved last)."""
        if len(seats) == 1:
            return seats[0]
        mover = self.state.current_player()
        if mover in seats:
            return mover
        for seat in reversed(self.movers):
            if seat in seats:
                return seat
        return seats[0]

    def seed_visible(self) -> bool:
        """The seed tells the whole deal: shown to a person alone against bots, and to
        several people only once the match is over."""
        return self.solo or self.state.is_terminal()

    def message(self, seats: tuple[int, ...]) -> dict[str, Any]:
        """The message a link gets: the seat's view, or in hot-seat mode a request to hand
        the screen over when another person is to be shown."""
        seat = self.seatshown_value(seats)
        header = {
            "version": self.version,
            "game": self.game.ruleset.name,
            "players": self.game.num_players,
            "people": list(self.people),
            "mode": "hot-seat" if self.hot_seat else "solo" if self.solo else "several",
            "seed": self.seed if self.seed_visible() else None,
            "match": self.matches,
            "options": {name: _json_value(value) for name, value in self.game.options.items()},
            "can_undo": self.solo and self.people[0] in self.movers,
            "can_new_match": self.solo or self.state.is_terminal(),
            "can_choose_seed": self.solo,
            "can_download": self.seed_visible(),
            "notice": self.record_problem,
        }
        if self.hot_seat and self.revealed != seat and not self.state.is_terminal():
            return {"type": "handover", "seat": seat, **header}
        return {"type": "state", **header, **views.seat_view(self.state, seat, self.faces)}

    def reveal(self, seats: tuple[int, ...]) -> None:
        """Hot seat: the person to be shown has the screen now. Refused when no screen waits
        for it, so a page cannot make the server push the position to every page at will."""
        if not self.hot_seat:
            raise Refused("reveal is only for hot seat; this page shows its own seat")
        if self.state.is_terminal():
            raise Refused("the match is over; there is no screen to hand over")
        seat = self.seatshown_value(seats)
        if self.revealed == seat:
            raise Refused(f"P{seat + 1}'s cards are on the screen already")
        self.revealed = seat

    def replay(self) -> dict[str, Any]:
        """The replay file of the match so far (the ruleset named as for a replay kept next to
        the rule file, or by name for a shipped one)."""
        if not self.seed_visible():
            raise Refused("the replay can be downloaded when the match is over")
        beside = api.find_ruleset(self.ruleset).resolve().parent / "replay.json"
        return replay.record(self.state, self.ruleset, beside)


def _json_value(value: Any) -> Any:
    return value if isinstance(value, (bool, int, float, str)) or value is None else str(value)
