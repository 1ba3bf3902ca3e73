"""A playtest server run in a thread of the test process, on a free port of 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

from rulesengine import api


@contextlib.contextmanager
def running(session, bot_delay: float = 0.0, hosts: frozenset[str] | None = None) -> Iterator[str]:
    """Serve `session` (answering only to `hosts`, when given); yields the base address
    (http://127.0.0.1:PORT) and stops the server after."""
    import uvicorn

    from rulesengine.web import server

    sock = server.listen("127.0.0.1", 0)
    web = uvicorn.Server(server.config(session, bot_delay, hosts))
    thread = threading.Thread(target=lambda: asyncio.run(web.serve(sockets=[sock])), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not web.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the playtest server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        web.should_exit = True
        thread.join(10)
        sock.close()


def make_session(ruleset: str, players: int, options: dict, seed: int, **settings):
    from rulesengine.web.session import Session

    game = api.make_game(api.load_ruleset(ruleset), players=players, options=options)
    return Session(game, ruleset, seed, **settings)


def link(base: str, session, seat: int = 0) -> str:
    """The address of the link that plays `seat`."""
    return base + next(path for path, seats in session.links() if seat in seats)


class Snapshot:
    """What check_wire reads of a position, kept as it was then (a clone keeps no log)."""

    def __init__(self, state):
        seats = range(state.num_players)
        self.observations = [state.observation(seat) for seat in seats]
        self.logs = [state.log_for(seat) for seat in seats]
        self.locations = state.card_locations()

    def observation(self, seat: int) -> dict:
        return self.observations[seat]

    def log_for(self, seat: int) -> list[str]:
        return self.logs[seat]

    def card_locations(self) -> dict[str, list[str]]:
        return self.locations


def positions(session) -> dict[int, Snapshot]:
    """Every position of the session's current match so far, by its number of decisions,
    rebuilt from the seed and the actions (as a replay would)."""
    state = session.game.new_initial_state(seed=session.seed, record_log=True)
    out = {state.steps: Snapshot(state)}
    for action in session.state.actions():
        state.apply_action(action)
        out[state.steps] = Snapshot(state)
    return out


def check_wire(message: dict, state, seat: int) -> None:
    """A message sent to `seat` holds exactly what the seat may see in `state`: its zones are
    the seat's observation, its log and last move the seat's, and no card lying where the
    seat cannot see it appears anywhere else in it (cards are matched as whole names)."""
    import json
    import re

    from rulesengine.web.views import LOG_LINES

    assert message["seat"] == seat
    observation = state.observation(seat)
    for zone in message["zones"]:
        seen = observation["zones"][zone["name"]]
        if isinstance(seen, list):
            assert [card["name"] for card in zone["cards"]] == seen
        else:
            assert zone["cards"] is None and zone["count"] == seen
    # the log and the last move are the seat's own (another's hidden move shows only its name);
    # they may name a card seen in public before that is hidden now (a cut card shuffled back)
    assert message["log"] == state.log_for(seat)[-LOG_LINES:]
    assert message["last_move"] == observation["last_move"]
    visible = {name for cards in observation["zones"].values() if isinstance(cards, list) for name in cards}
    visible |= set(observation["shown"])
    hidden = {name for cards in state.card_locations().values() for name in cards} - visible
    rest = json.dumps(
        {key: value for key, value in message.items() if key not in ("log", "last_move")}, ensure_ascii=False
    )
    if hidden:
        names = "|".join(re.escape(name) for name in sorted(hidden, key=len, reverse=True))
        found = re.search(rf"(?<!\w)(?:{names})(?!\w)", rest)
        assert found is None, f"hidden card {found.group(0)} sent to P{seat + 1}"
