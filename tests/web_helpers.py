"""A playtest server run in a thread of the test process, on a free port of 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

from rulesengine import api


@contextlib.contextmanager
def running(session, bot_delay: float = 0.0) -> Iterator[str]:
    """Serve `session`; yields the base address (http://127.0.0.1:PORT) and stops the server after."""
    import uvicorn

    from rulesengine.web import server

    sock = server.listen("127.0.0.1", 0)
    web = uvicorn.Server(server.config(session, bot_delay))
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
