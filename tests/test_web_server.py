"""The playtest server over real sockets on 127.0.0.1: the WebSocket protocol, malformed and
stale messages, reconnecting, the replay download, and `rulesengine serve` itself."""

from __future__ import annotations

import base64
import contextlib
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from click.testing import CliRunner

from rulesengine import replay
from rulesengine.cli import main
from rulesengine.resources import rulesets_dir
from tests.conftest import child_environment
from tests.web_helpers import check_wire, link, make_session, positions, running

pytest.importorskip("starlette", reason="the server needs the extra 'web'")
pytest.importorskip("uvicorn", reason="the server needs the extra 'web'")
client = pytest.importorskip("websockets.sync.client", reason="the server needs the extra 'web'")


def _socket(address: str):
    return client.connect(address.replace("http://", "ws://").replace("/play/", "/ws/"), open_timeout=5)


def _receive(ws) -> dict:
    return json.loads(ws.recv(timeout=5))


def _until_my_turn(ws, message: dict) -> dict:
    while message["type"] != "state" or (message["current"] != message["seat"] and not message["result"]):
        message = _receive(ws)
    return message


def test_a_whole_match_over_the_wire_shows_each_seat_only_what_it_may_see():
    session = make_session("padan", 2, {"target": 1}, 5, people=(0,), opponents="greedy")
    received = []
    with running(session) as base, _socket(link(base, session)) as ws:
        message = _receive(ws)
        received.append(message)
        while not message["result"]:
            if message["current"] == 0 and message["moves"]:
                ws.send(json.dumps({"type": "act", "action": message["moves"][0]["id"], "version": message["version"]}))
            message = _receive(ws)
            received.append(message)
        with urllib.request.urlopen(base + "/replay/" + link(base, session).rsplit("/", 1)[1]) as answer:
            data = json.loads(answer.read())
            assert "attachment" in answer.headers["Content-Disposition"]
    assert replay.verify(data).returns() == session.state.returns()
    states = positions(session)
    assert len(received) > 30
    for message in received:
        check_wire(message, states[message["decisions"]], 0)


def test_malformed_bad_and_stale_messages_get_an_error_and_change_nothing():
    session = make_session("pan", 2, {"word": "P"}, 3, people=(0, 1))
    with running(session) as base, _socket(link(base, session, 0)) as me, _socket(link(base, session, 1)) as other:
        first = _receive(me)
        _receive(other)
        mover = me if first["current"] == 0 else other
        waiting = other if mover is me else me
        version = session.version
        action = 0  # the first move offered
        bad = [
            b"\x00\xff binary",
            "not json",
            json.dumps([1, 2]),
            json.dumps({"type": "act"}),
            json.dumps({"type": "act", "action": 10**30, "version": version}),
            json.dumps({"type": "act", "action": action, "version": version - 1}),
            json.dumps({"type": "act", "action": -1, "version": version}),
            json.dumps({"type": "undo"}),  # several people: no undo
            json.dumps({"type": "new", "seed": 4}),  # several people: not while the match runs
        ]
        for text in bad:
            mover.send(text)
            answer = _receive(mover)
            assert answer["type"] == "error" and answer["message"], text
        waiting.send(json.dumps({"type": "act", "action": action, "version": version}))
        assert "turn" in _receive(waiting)["message"]
        assert session.version == version and session.state.actions() == []
        mover.send(json.dumps({"type": "act", "action": action, "version": version}))
        assert _receive(mover)["version"] == version + 1
        assert _receive(waiting)["version"] == version + 1  # pushed to the other seat's page too


def test_messages_odd_in_their_text_get_an_error_and_keep_the_connection():
    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session) as base, _socket(link(base, session)) as ws:
        _receive(ws)
        for text, said in (
            ('{"type": "act", "\\ud800": 1}', "no field"),  # a lone surrogate, which UTF-8 cannot carry back
            ("\N{GRINNING FACE}" * 2040, "at most"),  # 2,040 characters, 8,160 bytes
        ):
            ws.send(text)
            answer = _receive(ws)
            assert answer["type"] == "error" and said in answer["message"], text
        ws.send(json.dumps({"type": "refresh"}))
        assert _receive(ws)["type"] == "state"


def test_reveal_outside_hot_seat_is_refused_and_sent_to_nobody_else():
    session = make_session("pan", 2, {"word": "P"}, 3, people=(0, 1))
    with running(session) as base, _socket(link(base, session, 0)) as me, _socket(link(base, session, 1)) as other:
        _receive(me)
        _receive(other)
        me.send(json.dumps({"type": "reveal"}))
        answer = _receive(me)
        assert answer["type"] == "error" and "hot seat" in answer["message"]
        with pytest.raises(TimeoutError):
            other.recv(timeout=0.3)


def _silent_page(address: str) -> socket.socket:
    """A WebSocket opened by hand on a socket with a small receive buffer, to be left unread."""
    host, port = address.split("//", 1)[1].split("/", 1)[0].split(":")
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
    raw.connect((host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    path = "/ws/" + address.rsplit("/", 1)[1]
    raw.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    raw.settimeout(5)
    answer = b""
    while b"\r\n\r\n" not in answer:  # the server's answer to the handshake, before any frame
        answer += raw.recv(1)
    assert answer.startswith(b"HTTP/1.1 101")
    return raw


def _frame(payload: bytes) -> bytes:
    """A client's masked text frame (payload under 126 bytes)."""
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _read_until_closed(raw: socket.socket, seconds: float) -> tuple[int, bool]:
    """Bytes read from `raw` until the server closes it (True) or `seconds` pass (False)."""
    raw.settimeout(0.5)
    total, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            data = raw.recv(65536)
        except TimeoutError:
            continue
        except ConnectionError:
            return total, True
        if not data:
            return total, True
        total += len(data)
    return total, False


def test_a_page_that_stops_reading_slows_only_itself_and_is_dropped():
    session = make_session("pan", 2, {}, 1, people=(0, 1))
    asked = 5000
    with running(session) as base:
        slow = _silent_page(link(base, session, 0))
        try:
            slow.settimeout(10)
            slow.sendall(_frame(b'{"type": "refresh"}') * asked)  # and reads nothing meanwhile
            time.sleep(1)
            with _socket(link(base, session, 1)) as other:  # another page connects, reads and moves
                started = time.monotonic()
                message = _receive(other)
                other.send(json.dumps({"type": "refresh"}))
                assert _receive(other)["version"] == message["version"]
                assert time.monotonic() - started < 3
            read, closed = _read_until_closed(slow, 20)
        finally:
            slow.close()
    assert closed and read < asked * len(json.dumps(message)) / 2  # dropped long before all it asked for was sent


def test_a_page_that_sends_a_burst_and_reads_gets_every_answer():
    from rulesengine.web.app import MAX_QUEUED

    session = make_session("pan", 2, {}, 1, people=(0,))
    burst = 3 * MAX_QUEUED
    with running(session) as base, _socket(link(base, session)) as ws:
        _receive(ws)
        for _ in range(burst):
            ws.send(json.dumps({"type": "refresh"}))
        assert [_receive(ws)["type"] for _ in range(burst)] == ["state"] * burst


def test_a_message_to_a_page_is_always_text_a_frame_can_carry():
    from rulesengine.web.app import _dumps

    for message in ({"message": "P1 \N{BLACK HEART SUIT}"}, {"message": "a lone \ud800"}):
        text = _dumps(message)
        text.encode("utf-8")
        assert json.loads(text) == message
    assert "\N{BLACK HEART SUIT}" in _dumps({"message": "\N{BLACK HEART SUIT}"})  # as is, when it can be


def test_a_frame_too_long_closes_only_that_connection():
    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session) as base:
        with _socket(link(base, session)) as ws:
            _receive(ws)
            ws.send("x" * 100_000)
            with pytest.raises(Exception):  # noqa: B017  (the server closes the connection)
                _receive(ws)
        with _socket(link(base, session)) as again:
            assert _receive(again)["type"] == "state"


def test_a_reconnected_page_gets_the_current_position():
    session = make_session("padvinderspel", 2, {"target": 1}, 8, people=(0,), opponents="greedy")
    with running(session) as base:
        with _socket(link(base, session)) as ws:
            message = _until_my_turn(ws, _receive(ws))
            ws.send(json.dumps({"type": "act", "action": message["moves"][0]["id"], "version": message["version"]}))
            after = _receive(ws)
        with _socket(link(base, session)) as ws:
            again = _receive(ws)
    assert again["match"] == after["match"] and again["decisions"] >= after["decisions"] > message["decisions"]
    assert again["log"][: len(after["log"])] == after["log"]


def test_one_link_opens_a_bounded_number_of_pages():
    from rulesengine.web.app import MAX_PAGES_PER_LINK

    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session) as base, contextlib.ExitStack() as stack:
        pages = [stack.enter_context(_socket(link(base, session))) for _ in range(MAX_PAGES_PER_LINK)]
        assert all(_receive(ws)["type"] == "state" for ws in pages)
        with pytest.raises(Exception):  # noqa: B017  (refused before any message)
            with _socket(link(base, session)) as extra:
                extra.recv(timeout=5)
        pages[0].close()
        time.sleep(0.2)  # the server sees the page leave
        with _socket(link(base, session)) as again:
            assert _receive(again)["type"] == "state"


def test_unknown_links_are_refused():
    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session) as base:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/play/not-a-token")
        assert refused.value.code == 404
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + "/replay/not-a-token")
        with pytest.raises(Exception):  # noqa: B017  (closed before any message)
            with client.connect(base.replace("http", "ws") + "/ws/not-a-token", open_timeout=5) as ws:
                ws.recv(timeout=5)
        with urllib.request.urlopen(link(base, session)) as page:
            assert "default-src 'self'" in page.headers["Content-Security-Policy"]
            assert page.headers["Referrer-Policy"] == "no-referrer"


def test_a_page_of_another_site_cannot_open_a_seat_socket():
    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session) as base:
        address = link(base, session).replace("http://", "ws://").replace("/play/", "/ws/")
        own = base.rstrip("/")
        for foreign in ("http://evil.example", own + "0", "null", own.replace("http://", "ftp://"), "http://["):
            with pytest.raises(Exception) as refused:  # closed before any message
                with client.connect(address, origin=foreign, open_timeout=5) as ws:
                    ws.recv(timeout=5)
            assert "403" in str(refused.value), foreign  # refused at the handshake
        with client.connect(address, origin=own, open_timeout=5) as ws:  # the seat's own page
            assert _receive(ws)["type"] == "state"
        with client.connect(address, open_timeout=5) as ws:  # no Origin: not a browser
            assert _receive(ws)["type"] == "state"


def _answer_status(port: int, request: str) -> int:
    """The status the server answers `request` (sent whole on a new connection) with."""
    with socket.create_connection(("127.0.0.1", port)) as raw:
        raw.sendall(request.encode("latin-1"))
        raw.settimeout(5)
        answer = b""
        while b"\r\n" not in answer:
            answer += raw.recv(1)
    return int(answer.split()[1])


def test_a_server_on_this_computer_answers_only_to_its_names_for_itself():
    from rulesengine.web.app import LOOPBACK_NAMES

    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session, hosts=LOOPBACK_NAMES) as base:
        port = int(base.rsplit(":", 1)[1])
        token = link(base, session).rsplit("/", 1)[1]
        handshake = (
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\nSec-WebSocket-Version: 13\r\n"
        )
        own = (f"127.0.0.1:{port}", f"localhost:{port}", "LocalHost", f"[::1]:{port}", "127.0.0.1")
        # a page of another site whose name was made to point here (DNS rebinding), or no name
        foreign = (f"evil.example:{port}", "127.0.0.1.evil.example", f"[::1:{port}", "")
        for host in own + foreign:
            expected = (200, 101) if host in own else (403, 403)
            for path, extra, status in ((f"/play/{token}", "", expected[0]), (f"/ws/{token}", handshake, expected[1])):
                request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n"
                if extra:  # a handshake says `Connection: Upgrade` alone
                    request = request.replace("Connection: close\r\n", "")
                assert _answer_status(port, request) == status, (host, path)
        with urllib.request.urlopen(link(base, session)) as page:  # the link as printed
            assert page.status == 200
    with running(session) as base:  # listening for other computers: any name (they have many)
        port = int(base.rsplit(":", 1)[1])
        request = f"GET /play/{token} HTTP/1.1\r\nHost: my-laptop.lan:{port}\r\nConnection: close\r\n\r\n"
        assert _answer_status(port, request) == 200


def _closed_within(connection: socket.socket, seconds: float) -> bool:
    """Whether the server closes `connection` within `seconds` (what it sent meanwhile is read)."""
    connection.settimeout(seconds)
    try:
        while connection.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


def test_a_connection_whose_headers_do_not_come_is_closed(monkeypatch):
    from rulesengine.web import server

    monkeypatch.setattr(server, "HEADER_SECONDS", 0.5)
    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session) as base:
        port = int(base.rsplit(":", 1)[1])
        path = link(base, session).split(str(port), 1)[1]
        with socket.create_connection(("127.0.0.1", port)) as silent:  # sends nothing
            assert _closed_within(silent, 5)
        with socket.create_connection(("127.0.0.1", port)) as trickling:  # a header a byte at a time
            for byte in f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Slow: ".encode():
                trickling.sendall(bytes([byte]))
            started = time.monotonic()
            try:
                while time.monotonic() - started < 5:
                    trickling.sendall(b"a")
                    time.sleep(0.05)
            except ConnectionError:
                pass
            assert time.monotonic() - started < 5 and _closed_within(trickling, 5)
        with socket.create_connection(("127.0.0.1", port)) as kept:  # a whole request, then a slow one
            kept.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            kept.settimeout(5)
            assert kept.recv(4096).startswith(b"HTTP/1.1 200")
            kept.sendall(b"GET / HTTP/1.1\r\n")
            assert _closed_within(kept, 5)
        for body in (b"Content-Length: 1000000\r\n\r\n", b"Transfer-Encoding: chunked\r\n\r\n1\r\na\r\n"):
            with socket.create_connection(("127.0.0.1", port)) as endless:  # a body that never ends
                endless.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\n".encode() + body)
                endless.settimeout(5)
                assert endless.recv(4096).startswith(b"HTTP/1.1 405")  # answered without reading it
                endless.sendall(b"a")  # a byte of it: uvicorn's keep-alive timer stops for good
                assert _closed_within(endless, 5)
        with socket.create_connection(("127.0.0.1", port)) as prompt:  # a request that comes in time is served
            time.sleep(0.2)
            prompt.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            prompt.settimeout(5)
            assert prompt.recv(4096).startswith(b"HTTP/1.1 200")
        with _socket(link(base, session)) as ws:  # a WebSocket stays open past the deadline
            _receive(ws)
            time.sleep(1)
            ws.send(json.dumps({"type": "refresh"}))
            assert _receive(ws)["type"] == "state"


def test_a_body_that_breaks_http_is_answered_400_with_one_line_in_the_log():
    session = make_session("pan", 2, {}, 1, people=(0,))
    with running(session) as base:
        logged: list[logging.LogRecord] = []
        catcher = logging.Handler()
        catcher.emit = logged.append  # type: ignore[method-assign]
        log = logging.getLogger("uvicorn.error")  # after the server's start, which sets up its logging
        log.addHandler(catcher)
        try:
            port = int(base.rsplit(":", 1)[1])
            path = link(base, session).split(str(port), 1)[1]
            with socket.create_connection(("127.0.0.1", port)) as raw:  # "zz" is no chunk size
                raw.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".encode())
                raw.settimeout(5)
                assert raw.recv(4096).startswith(b"HTTP/1.1 400")
                assert _closed_within(raw, 5)
            time.sleep(0.2)  # the application's own answer to the request, dropped
        finally:
            log.removeHandler(catcher)
        assert [(r.getMessage(), r.exc_info) for r in logged] == [("Invalid HTTP request received.", None)]
        with urllib.request.urlopen(link(base, session)) as page:  # served as before
            assert page.status == 200


def test_the_replay_is_not_given_to_several_people_before_the_match_ends():
    session = make_session("pan", 3, {}, 1, people=(0, 1))
    with running(session) as base:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/replay/" + link(base, session).rsplit("/", 1)[1])
        assert refused.value.code == 409


def test_serve_listens_on_this_computer_only_by_default():
    serve = main.commands["serve"]
    host = next(param for param in serve.params if param.name == "host")
    assert host.default == "127.0.0.1"
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert "0.0.0.0" in result.output and "docs/playtest.md" in result.output


def test_serve_refuses_bad_settings_in_one_line():
    runner = CliRunner()
    for args, said in (
        (["serve", "pan", "--seats", "1,9"], "seats 1 to 3"),
        (["serve", "pan", "--seats", "one"], "seat numbers"),
        (["serve", "pan", "--opponents", "wizard"], "unknown agent"),
        (["serve", "nosuchgame"], "nosuchgame"),
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 2 and said in result.output, result.output


def test_serve_says_when_the_port_is_taken():
    from rulesengine.web import server

    taken = server.listen("127.0.0.1", 0)
    try:
        result = CliRunner().invoke(main, ["serve", "pan", "--port", str(taken.getsockname()[1])])
    finally:
        taken.close()
    assert result.exit_code == 2 and "cannot listen on 127.0.0.1" in result.output


def test_serve_without_the_extra_says_how_to_install_it(tmp_path):
    blocker = tmp_path / "sitecustomize.py"  # makes the extra's packages unimportable in the child
    blocker.write_text(
        "import sys\nclass _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('starlette', 'uvicorn'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, _Block())\n"
    )
    environment = child_environment()
    environment["PYTHONPATH"] = f"{tmp_path}:{environment.get('PYTHONPATH', '')}".rstrip(":")
    result = subprocess.run(
        [sys.executable, "-m", "rulesengine.cli", "serve", "pan"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ['Error: serve needs the web extra: pip install "rulesengine[web]"']


def test_serve_prints_the_links_and_serves_the_page():
    environment = {**child_environment(), "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "rulesengine.cli", "serve", "pan", "--port", "0", "--seats", "1,2", "--seed", "4"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        lines = [process.stdout.readline() for _ in range(4)]
        assert "serving on 127.0.0.1:" in lines[0]
        addresses = [line.split(": ", 1)[1].strip() for line in lines[2:4]]
        assert [line.split(":")[0].strip() for line in lines[2:4]] == ["P1", "P2"]
        assert len(set(addresses)) == 2 and all(a.startswith("http://127.0.0.1:") for a in addresses)
        with urllib.request.urlopen(addresses[1], timeout=10) as page:
            assert "/static/play.js" in page.read().decode()
        with _socket(addresses[1]) as ws:
            message = _receive(ws)
            assert message["seat"] == 1 and message["seed"] is None and message["mode"] == "several"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_checks_the_record_folder_before_serving(tmp_path):
    rule_file = tmp_path / "rules" / "mine.yaml"
    rule_file.parent.mkdir()
    rule_file.write_text((rulesets_dir() / "pan.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    runner = CliRunner()
    for args, said in (
        (["serve", "pan", "--record", str(tmp_path / "missing")], "does not exist"),
        (["serve", str(rule_file), "--record", str(tmp_path / "elsewhere")], "not in the replay's folder"),
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 2 and "--record:" in result.output and said in result.output, result.output


class _FailingBot:
    def choose(self, view):
        raise RuntimeError("this bot cannot choose")


def test_a_failing_bot_is_reported_to_the_page_and_the_server_goes_on():
    session = make_session("pan", 2, {"word": "P"}, 3, people=(0,))
    bot_seat = 1
    session.bots[bot_seat] = _FailingBot()
    with running(session) as base, _socket(link(base, session)) as ws:
        message = _receive(ws)
        if message["current"] == 0:  # the person moves first: hand the turn to the bot
            ws.send(json.dumps({"type": "act", "action": 0, "version": message["version"]}))
            message = _receive(ws)
        while message["type"] != "error":
            message = _receive(ws)
        assert "a bot failed" in message["message"]
        # the server still answers: a reconnecting page gets the position, bot to move
        with _socket(link(base, session)) as again:
            position = _receive(again)
    assert position["type"] == "state" and position["current"] == bot_seat
