"""Run a playtest session's web server (uvicorn) on a socket bound before it starts, so an
address in use is a one-line error, not a server that fails after saying it is ready."""

from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn

from .app import create_app
from .protocol import MAX_MESSAGE_BYTES
from .session import Session

LOCAL = "127.0.0.1"


class ListenError(Exception):
    """The server cannot listen on the address asked for."""


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: a free one)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except (OSError, UnicodeError) as error:
        raise ListenError(f"cannot listen on {host}:{port}: {getattr(error, 'strerror', None) or error}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(64)
    except OSError as error:
        sock.close()
        raise ListenError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    sock.set_inheritable(True)
    return sock


def links(session: Session, host: str, port: int) -> list[str]:
    """A line per link: the seats it plays and its address."""
    shown = socket.gethostname() if host in ("0.0.0.0", "::") else host
    shown = f"[{shown}]" if ":" in shown else shown
    out = []
    for path, seats in session.links():
        who = ", ".join(f"P{seat + 1}" for seat in seats)
        out.append(f"  {who}: http://{shown}:{port}{path}")
    return out


def config(session: Session, bot_delay: float) -> uvicorn.Config:
    return uvicorn.Config(
        create_app(session, bot_delay),
        log_level="warning",
        lifespan="off",
        ws="websockets-sansio",
        ws_max_size=MAX_MESSAGE_BYTES * 4,  # longer frames close the connection before they are read
    )


def run(session: Session, host: str, port: int, bot_delay: float, say: Callable[[str], None]) -> None:
    """Serve `session` until interrupted; `say` prints the links and how to reach them."""
    sock = listen(host, port)
    port = sock.getsockname()[1]
    say(f"{session.game.ruleset.name}: {session.game.num_players} players, serving on {host}:{port}")
    say("open the link of your seat in a browser (each link is that seat's key: share it only with its player):")
    for line in links(session, host, port):
        say(line)
    if host in ("127.0.0.1", "localhost", "::1"):
        say("only this computer can connect; to play from other machines on your network, use --host 0.0.0.0")
    if session.record is not None:
        say(f"the replay of each finished match is written to {session.record}")
    say("press Ctrl-C to stop")
    server = uvicorn.Server(config(session, bot_delay))
    server.run(sockets=[sock])
