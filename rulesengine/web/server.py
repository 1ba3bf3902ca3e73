"""Run a playtest session's web server (uvicorn) on a socket bound before it starts, so an
address in use is a one-line error, not a server that fails after saying it is ready."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .app import LOOPBACK, LOOPBACK_NAMES, create_app
from .protocol import MAX_MESSAGE_BYTES
from .session import Session

LOCAL = "127.0.0.1"
# Seconds a connection may take to send a request's line and headers (a browser sends them at
# once) after it opens or after the response to its last request.
HEADER_SECONDS = 10.0


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


class TimelyHeaders(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a deadline for a request's headers: uvicorn waits for
    them for ever (its keep-alive timer starts only after a response), so connections that
    send nothing, or a header a byte at a time, would pile up on a server open to the
    network. Such a connection is closed once `HEADER_SECONDS` pass with no request begun,
    and so is one still sending a request's body then: no page of this server reads a body,
    and a byte of one stops uvicorn's keep-alive timer, which would hold it open for ever."""

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_header_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._start_header_timer()  # the next request on a kept connection gets its own time

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        # A request whose body breaks HTTP (a malformed chunk) is answered 400 and its
        # connection closed at once, while the application may still be answering it: its
        # answer is dropped, as for a client that left, instead of failing in h11 with a
        # traceback in the log.
        super().send_400_response(msg)
        if self.cycle is not None:
            self.cycle.disconnected = True

    def _start_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._headers_late)

    def _headers_late(self) -> None:
        self._header_timer = None
        # IDLE: no whole request line and headers yet; SEND_BODY: a body still coming, answered
        # or not. A WebSocket, its handshake done, is another protocol's connection: left alone.
        mine = self.transport.get_protocol() is self
        if mine and self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()


def config(session: Session, bot_delay: float, hosts: frozenset[str] | None = None) -> uvicorn.Config:
    return uvicorn.Config(
        create_app(session, bot_delay, hosts),
        http=TimelyHeaders,
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
    if host in LOOPBACK:
        say("only this computer can connect; to play from other machines on your network, use --host 0.0.0.0")
    if session.record is not None:
        say(f"the replay of each finished match is written to {session.record}")
    say("press Ctrl-C to stop")
    # Listening on this computer only, the server answers only to its names for itself: a page
    # of another site cannot reach it by making its own name point here.
    hosts = LOOPBACK_NAMES if host in LOOPBACK else None
    server = uvicorn.Server(config(session, bot_delay, hosts))
    server.run(sockets=[sock])
