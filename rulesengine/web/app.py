"""The web application of a playtest session: the seat page, its WebSocket, the replay
download and the static files (all served from this package; the page loads nothing from
elsewhere).

Every change to the session is made under one lock and followed by a message to every
open page, each built for that page's seat alone and queued to that page's own writer, so
a page that stops reading holds up no other (it is dropped once MAX_QUEUED messages wait
for it); bots move in a background task, one move at a time, so people see each move
arrive.
"""

from __future__ import annotations

import asyncio
import json
import logging
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..agents import Agent, as_view
from ..diagnostics import RulesEngineError
from ..engine import State
from . import protocol
from .session import Refused, Session

STATIC = resources.files("rulesengine.web") / "static"
_log = logging.getLogger("rulesengine.web")
_HEADERS = {
    # the page runs only its own script and talks only to this server
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the seat's token is in the address: never pass it on
    "Cache-Control": "no-store",
}


MAX_QUEUED = 64  # messages waiting for one page; a page that lets more pile up is dropped
MAX_PAGES_PER_LINK = 16  # a person opens a few tabs of a link; more is a runaway script


def _dumps(message: dict[str, Any]) -> str:
    """A message as JSON text a UTF-8 frame can carry: a lone surrogate (which JSON from a
    page may spell) is escaped, as every other character is only then."""
    text = json.dumps(message, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(message)
    return text


class Page:
    """One open page: its seats, and the messages waiting for it, sent by its own task, so
    a page that stops reading slows only itself."""

    def __init__(self, socket: WebSocket, seats: tuple[int, ...]):
        self.socket = socket
        self.seats = seats
        self.outbox: asyncio.Queue[str] = asyncio.Queue(MAX_QUEUED)
        self.writer = asyncio.create_task(self._write())

    def put(self, message: dict[str, Any]) -> bool:
        """Queue `message`; False when the page already has MAX_QUEUED waiting."""
        try:
            self.outbox.put_nowait(_dumps(message))
        except asyncio.QueueFull:
            return False
        return True

    async def _write(self) -> None:
        try:
            while True:
                await self.socket.send_text(await self.outbox.get())
        except (RuntimeError, OSError, WebSocketDisconnect):  # the page went away meanwhile
            pass


class Hub:
    """The open pages of a session and what is sent to them. Changes are made under one
    lock, but nothing is sent under it: messages are queued to each page's own writer."""

    def __init__(self, session: Session, bot_delay: float = 0.0):
        self.session = session
        self.bot_delay = bot_delay
        self.lock = asyncio.Lock()
        self.pages: set[Page] = set()
        self._bots: asyncio.Task | None = None

    def send(self, page: Page, message: dict[str, Any]) -> None:
        if not page.put(message):  # it has stopped reading: its connection is closed
            self.drop(page)

    def drop(self, page: Page) -> None:
        self.pages.discard(page)
        page.writer.cancel()  # ends the page's connection (see `connect`)

    def broadcast(self) -> None:
        for page in list(self.pages):
            self.send(page, self.session.message(page.seats))

    async def handle(self, page: Page, text: str | bytes) -> None:
        """One message from a page: applied, or answered with an error and nothing changed."""
        try:
            message = protocol.read(text)
        except protocol.BadMessage as problem:
            self.send(page, protocol.error(str(problem)))
            return
        async with self.lock:
            try:
                self._apply(page, message)
            except Refused as refusal:  # every change is pushed to every page: a stale page has the news already
                self.send(page, protocol.error(str(refusal)))
                return
            except RulesEngineError as problem:  # the engine refused: the position is unchanged
                self.send(page, protocol.error(str(problem)))
                return
        self.start_bots()

    def _apply(self, page: Page, message: dict[str, Any]) -> None:
        """Make the change a checked message asks for and tell every page (a refresh: the
        page alone); Refused or RulesEngineError when it is not allowed."""
        session, seats, kind = self.session, page.seats, message["type"]
        if kind == "refresh":
            self.send(page, session.message(seats))
            return
        if kind == "act":
            session.act(seats, message["action"], message["version"])
        elif kind == "undo":
            session.undo(seats)
        elif kind == "new":
            session.new_match(seats, message.get("seed"))
        else:  # reveal
            session.reveal(seats)
        self.broadcast()

    def start_bots(self) -> None:
        if self._bots is None or self._bots.done():
            self._bots = asyncio.create_task(self._drive_bots())

    async def _drive_bots(self) -> None:
        """Let bots move until a person is to move or the match is over."""
        session = self.session
        while True:
            async with self.lock:
                bot = session.bot_to_move()
                if bot is None:
                    return
                # the bot thinks on its own copy: pages keep reading the match meanwhile
                version, state = session.version, session.state.clone()
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            try:
                # a search bot may think for seconds: the server answers pages meanwhile
                action = await asyncio.to_thread(_choose, bot, state)
            except Exception:  # a bot's failure ends the bots' turn, not the server
                _log.exception("a bot failed to choose a move")
                async with self.lock:
                    for page in list(self.pages):
                        self.send(page, protocol.error("a bot failed to choose a move; see the server's log"))
                return
            async with self.lock:
                if session.bot_act(action, version):
                    self.broadcast()

    async def connect(self, socket: WebSocket) -> None:
        if not _same_origin(socket.headers.get("origin"), socket.headers.get("host")):
            # a browser names the page that opens a socket: a page of another site (which could
            # know a link only if it leaked) gets nothing, whatever the token
            await socket.close(code=4403, reason="only the seat's own page may connect")
            return
        seats = self.session.seats_of(socket.path_params["token"])
        if seats is None:
            await socket.close(code=4404, reason="unknown link")
            return
        if sum(open_page.seats == seats for open_page in self.pages) >= MAX_PAGES_PER_LINK:
            await socket.close(code=4429, reason="too many pages of this link are open")
            return
        await socket.accept()
        page = Page(socket, seats)
        reader = asyncio.create_task(self._read(page))
        async with self.lock:
            self.pages.add(page)
            self.send(page, self.session.message(seats))
        self.start_bots()
        try:  # until the page leaves, or is dropped (its writer cancelled) for not reading
            await asyncio.wait({reader, page.writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.drop(page)
            reader.cancel()
            for result in await asyncio.gather(reader, page.writer, return_exceptions=True):
                if isinstance(result, Exception):
                    _log.error("a page's connection failed", exc_info=result)

    async def _read(self, page: Page) -> None:
        """Handle the page's messages, one at a time, until it disconnects."""
        try:
            while True:
                event = await page.socket.receive()
                if event["type"] == "websocket.disconnect":
                    return
                text = event.get("text")
                await self.handle(page, text if text is not None else event.get("bytes") or b"")
                # the writer hands the answer on before the next message is read: only a page
                # that does not read lets messages pile up, not one that sends a burst
                await asyncio.sleep(0)
        except WebSocketDisconnect:
            pass


def _same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a WebSocket handshake comes from a page served by this server: a handshake
    without an Origin (not from a browser) is let through; one from a browser names the
    page's scheme, host and port, which must be those the request was sent to."""
    if origin is None:
        return True
    try:
        page = urlsplit(origin)
    except ValueError:  # no URL at all ("http://[", an unclosed address): no page of this server
        return False
    return page.scheme in ("http", "https") and host is not None and page.netloc.lower() == host.lower()


def _choose(bot: Agent, state: State) -> int:
    """A bot's action, given its view of the state as `play_match` gives it."""
    return bot.choose(as_view(bot, state, getattr(bot, "rng", None)))


class _SecurityHeaders:
    """The same protective headers on every HTTP answer."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in _HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


# The addresses to listen on that only this computer reaches, and the names it goes by for
# itself alone as a Host header gives them (an IPv6 address in brackets, no port).
LOOPBACK = ("127.0.0.1", "localhost", "::1")
LOOPBACK_NAMES = frozenset(f"[{address}]" if ":" in address else address for address in LOOPBACK)


def _host_name(header: str) -> str:
    """The host of a Host header, without its port, in lower case."""
    header = header.strip().lower()
    if header.startswith("["):  # an IPv6 address: its colons are not the port's
        return header[: header.find("]") + 1] if "]" in header else header
    return header.split(":", 1)[0]


class _KnownHosts:
    """Refuses a request or handshake whose Host header names another computer (HTTP 403):
    a page of another site that makes its own name point at this computer (DNS rebinding)
    is then not served, even though the browser takes it for that site's own."""

    def __init__(self, app: ASGIApp, names: frozenset[str]):
        self.app = app
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            header = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if _host_name(header) not in self.names:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": 1008})  # before accepting: HTTP 403
                else:
                    await PlainTextResponse("this server answers only to the names of this computer", 403)(
                        scope, receive, send
                    )
                return
        await self.app(scope, receive, send)


def create_app(session: Session, bot_delay: float = 0.0, hosts: frozenset[str] | None = None) -> Starlette:
    """The application serving `session`; with `hosts`, only requests whose Host header names
    one of them (see `_host_name`) are served."""
    hub = Hub(session, bot_delay)

    async def home(request: Request) -> Response:
        return PlainTextResponse(
            f"{session.game.ruleset.name}: a rulesengine playtest. Open your seat's link, "
            "as printed where the server was started."
        )

    async def seat_page(request: Request) -> Response:
        if session.seats_of(request.path_params["token"]) is None:
            return PlainTextResponse("unknown link: ask for your seat's link again", status_code=404)
        return FileResponse(str(STATIC / "play.html"), media_type="text/html; charset=utf-8")

    async def download(request: Request) -> Response:
        if session.seats_of(request.path_params["token"]) is None:
            return PlainTextResponse("unknown link", status_code=404)
        async with hub.lock:
            try:
                data = session.replay()
            except Refused as refusal:
                return PlainTextResponse(str(refusal), status_code=409)
            except RulesEngineError as problem:
                return PlainTextResponse(str(problem), status_code=409)
        name = f"replay-seed{session.seed}-match{session.matches}.json"
        return Response(
            json.dumps(data, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    app = Starlette(
        routes=[
            Route("/", home),
            Route("/play/{token}", seat_page),
            Route("/replay/{token}", download),
            WebSocketRoute("/ws/{token}", hub.connect),
            Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
        ]
    )
    if hosts is not None:
        app.add_middleware(_KnownHosts, names=hosts)
    app.add_middleware(_SecurityHeaders)  # added last, it runs first: its headers go on every answer
    app.state.hub = hub
    return app
