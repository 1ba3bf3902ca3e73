"""The language server against a hostile client: `rulesengine lsp` in a process of its own,
driven over stdio by a bare JSON-RPC client that can send what no real editor would
(broken framing, malformed requests, requests for documents that are not open). Every
request gets an answer, no answer carries a traceback, and the server keeps serving."""

from __future__ import annotations

import io
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

pytest.importorskip("pygls")

from rulesengine.api import validate_file  # noqa: E402
from rulesengine.lsp.transport import MAX_LINE_BYTES, MAX_MESSAGE_BYTES, BoundedInput  # noqa: E402
from rulesengine.resources import rulesets_dir  # noqa: E402
from tests.conftest import child_environment  # noqa: E402

TIMEOUT = 60  # seconds for one answer, generous for a loaded machine
Message = dict[str, Any]


class Client:
    """A bare LSP client over the stdio of a server process."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "rulesengine.cli", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_environment(),
            cwd=cwd,
        )
        self.messages: queue.Queue[Message | None] = queue.Queue()
        self.stderr: list[str] = []
        self.passed: list[Message] = []  # messages a wait went past
        self.last_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while (headers := _headers(stream)) is not None:
            self.messages.put(json.loads(stream.read(int(headers["content-length"]))))
        self.messages.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: Message | bytes) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def next_id(self) -> int:
        self.last_id += 1
        return self.last_id

    def request(self, method: str, params: object) -> Message:
        number = self.next_id()
        self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return self.answer(number)

    def answer(self, number: object) -> Message:
        return self.wait(lambda m: m.get("id") == number and "method" not in m)

    def notify(self, method: str, params: object) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, wanted: Any) -> Message:
        while True:
            try:
                message = self.messages.get(timeout=TIMEOUT)
            except queue.Empty:
                pytest.fail(f"no answer within {TIMEOUT} s; the server wrote:\n{''.join(self.stderr)[-2000:]}")
            if message is None:
                pytest.fail(f"the server closed its output:\n{''.join(self.stderr)[-2000:]}")
            if wanted(message):
                return message
            self.passed.append(message)

    def open(self, uri: str, text: str, version: int = 1) -> None:
        document = {"uri": uri, "languageId": "yaml", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": document})

    def diagnostics(self, uri: str) -> list[Message]:
        published = self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        )
        return list(published["params"]["diagnostics"])

    def serves(self, tmp_path: Path) -> bool:
        """Whether the server still answers a request about an open document."""
        uri = (tmp_path / "alive.yaml").as_uri()
        self.open(uri, "rulesengine: 1\nname: x\n")
        self.diagnostics(uri)
        return "result" in self.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})


def _headers(stream: IO[bytes]) -> dict[str, str] | None:
    headers = {}
    while line := stream.readline():
        if not line.strip():
            return headers
        key, value = line.decode().split(":", 1)
        headers[key.strip().lower()] = value.strip()
    return None


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    started = Client(tmp_path)
    started.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    started.notify("initialized", {})
    yield started
    started.process.kill()
    started.process.wait()


# ---- documents that are not open ------------------------------------------------------------------


def _position_requests(uri: str) -> dict[str, Message]:
    at = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 1}}
    return {
        "textDocument/documentSymbol": {"textDocument": {"uri": uri}},
        "textDocument/hover": at,
        "textDocument/completion": at,
        "textDocument/definition": at,
    }


def _empty(result: object) -> bool:
    return result in (None, []) or (isinstance(result, dict) and result.get("items") == [])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_documents_that_are_not_open_are_not_read_from_disk(client: Client, tmp_path: Path):
    secret = tmp_path / "secret.yaml"
    secret.write_text("rulesengine: 1\nname: x\npassword_of_root: hunter2\n", encoding="utf-8")
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # reading it would block the server for good
    targets = [secret, fifo, tmp_path / "missing.yaml", tmp_path, Path("/nonexistent/folder/x.yaml")]
    for target in targets:
        for method, params in _position_requests(target.as_uri()).items():
            answer = client.request(method, params)
            assert "error" not in answer and _empty(answer["result"]), (target.name, method, answer)
    client.notify("textDocument/didSave", {"textDocument": {"uri": secret.as_uri()}})
    assert client.serves(tmp_path)
    assert not [m for m in client.passed if m.get("params", {}).get("uri") == secret.as_uri()]


def test_a_closed_document_is_no_longer_served(client: Client, tmp_path: Path):
    path = tmp_path / "game.yaml"
    path.write_text("rulesengine: 1\nname: on disk\nzones: {pile: {}}\n", encoding="utf-8")
    uri = path.as_uri()
    client.open(uri, "rulesengine: 1\nname: in the editor\n")
    client.diagnostics(uri)
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})["result"]
    assert [s["name"] for s in symbols] == ["rulesengine", "name"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})["result"] in (None, [])


# ---- positions outside the document ---------------------------------------------------------------


def test_completion_past_the_last_line_answers_an_empty_list(client: Client, tmp_path: Path):
    uri = (tmp_path / "game.yaml").as_uri()
    client.open(uri, "rulesengine: 1\nname: x\nzones:\n  pile: {visibility: all}\n")
    client.diagnostics(uri)
    for line, character in [(5, 0), (99, 3), (2**31 - 1, 2**31 - 1)]:
        at = {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
        answer = client.request("textDocument/completion", at)
        assert answer.get("result") == {"isIncomplete": False, "items": []}, answer
        for method in ["textDocument/hover", "textDocument/definition"]:
            assert client.request(method, at).get("result") is None


# ---- text that is not Unicode --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("game.yaml", 'rulesengine: 1\nname: "a\ud800b"\nzones: {"h\udfff": {}}\n'),
        ("game.tests.yaml", 'ruleset: pan\ntests:\n  - name: "\U0001f600 \udc80"\n'),
    ],
)
def test_a_lone_surrogate_is_reported_as_validate_reports_it(client: Client, tmp_path: Path, name: str, text: str):
    """JSON may carry a lone surrogate, which no UTF-8 file can: validate reports the bytes a
    file would hold for it as not UTF-8, and so does the server."""
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    expected = [(d.code, d.span.line - 1, d.span.column - 1, d.message) for d in validate_file(path)[1]]
    assert [code for code, *_ in expected] == ["RE008"]
    client.open(path.as_uri(), text)
    shown = client.diagnostics(path.as_uri())
    assert [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in shown] == [
        (code, line, column + (1 if "\U0001f600" in text else 0)) for code, line, column, _ in expected
    ]  # the emoji before it is two UTF-16 units
    assert shown[0]["message"].startswith(expected[0][3])
    for method, params in _position_requests(path.as_uri()).items():
        answer = client.request(method, params)
        assert "error" not in answer, (method, answer)


# ---- malformed requests -------------------------------------------------------------------------

INVALID_PARAMS, INVALID_REQUEST = -32602, -32600


def _hover(position: object) -> Message:
    return {"textDocument": {"uri": "file:///nowhere/game.yaml"}, "position": position}


MALFORMED: dict[str, tuple[Message, int]] = {
    "negative line": ({"jsonrpc": "2.0", "params": _hover({"line": -1, "character": 0})}, INVALID_PARAMS),
    "line of 2**31": ({"jsonrpc": "2.0", "params": _hover({"line": 2**31, "character": 0})}, INVALID_PARAMS),
    "line a text": ({"jsonrpc": "2.0", "params": _hover({"line": "a", "character": 0})}, INVALID_PARAMS),
    "no character": ({"jsonrpc": "2.0", "params": _hover({"line": 0})}, INVALID_PARAMS),
    "params null": ({"jsonrpc": "2.0", "params": None}, INVALID_PARAMS),
    "params a list": ({"jsonrpc": "2.0", "params": [1]}, INVALID_PARAMS),
    "JSON-RPC 1.0": ({"jsonrpc": "1.0", "params": _hover({"line": 0, "character": 0})}, INVALID_REQUEST),
    "no jsonrpc": ({"params": _hover({"line": 0, "character": 0})}, INVALID_REQUEST),
}


@pytest.mark.parametrize("case", MALFORMED, ids=MALFORMED)
def test_a_malformed_request_gets_an_error_with_its_id(client: Client, tmp_path: Path, case: str):
    message, code = MALFORMED[case]
    for number in (client.next_id(), f"request-{client.next_id()}"):
        client.send({**message, "id": number, "method": "textDocument/hover"})
        answer = client.answer(number)
        assert answer["error"]["code"] == code, answer
        assert "data" not in answer["error"] and "Traceback" not in answer["error"]["message"]
    assert client.serves(tmp_path)
    assert "Traceback" not in "".join(client.stderr)  # the refusal is logged in one line


@pytest.mark.parametrize("number", [1.5, {"a": 1}, [2], True])
def test_a_request_whose_id_is_invalid_is_answered_with_a_null_id(client: Client, tmp_path: Path, number: object):
    client.send({"jsonrpc": "2.0", "id": number, "method": "textDocument/hover", "params": _hover({})})
    answer = client.wait(lambda m: "error" in m)
    assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST
    assert client.serves(tmp_path)


def test_a_body_that_is_not_json_is_answered_with_a_parse_error(client: Client, tmp_path: Path):
    client.send(b"{abc}")
    answer = client.wait(lambda m: "error" in m)
    assert answer["id"] is None and answer["error"]["code"] == -32700
    assert client.serves(tmp_path)
    assert "Traceback" not in "".join(client.stderr) and "not JSON" in "".join(client.stderr)
    assert not [m for m in client.passed if m.get("method") == "window/showMessage"]


def test_a_notification_whose_params_cannot_be_read_is_passed_over_quietly(client: Client, tmp_path: Path):
    uri = (tmp_path / "big.yaml").as_uri()
    document = {"uri": uri, "languageId": "yaml", "version": 10**30, "text": "name: x"}  # past LSP's integers
    client.notify("textDocument/didOpen", {"textDocument": document})
    assert client.serves(tmp_path)
    assert "Traceback" not in "".join(client.stderr) and "ignored textDocument/didOpen" in "".join(client.stderr)
    assert not [m for m in client.passed if m.get("method") == "window/showMessage"]


# ---- bodies and messages that cannot be read -----------------------------------------------------

PARSE_ERROR, METHOD_NOT_FOUND = -32700, -32601

_SHUTDOWN = '{"jsonrpc":"2.0","id":2,"method":"shutdown"}'
UNREADABLE_BODIES: dict[str, tuple[bytes, tuple[int, ...]]] = {
    "not UTF-8": (b'{"jsonrpc":"2.0","id":2,"method":"\xff"}', (PARSE_ERROR,)),
    "arrays nested 5000 deep": (b"[" * 5000 + b"]" * 5000, (PARSE_ERROR, INVALID_REQUEST)),
    "objects nested 5000 deep": (b'{"a":' * 5000 + b"1" + b"}" * 5000, (PARSE_ERROR, INVALID_REQUEST)),
    "a number of 5000 digits": (b'{"jsonrpc":"2.0","id":%s,"method":"shutdown"}' % (b"9" * 5000), (PARSE_ERROR,)),
    # LSP bodies are UTF-8 only: JSON in another encoding, which json.loads would guess from
    # the first bytes and read, is refused as any other body that is not UTF-8 JSON
    **{
        f"a shutdown request in {encoding}": (_SHUTDOWN.encode(encoding), (PARSE_ERROR,))
        for encoding in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-8-sig")
    },
    "an encoded surrogate": (b'{"jsonrpc":"2.0","id":2,"method":"\xed\xa0\x80"}', (PARSE_ERROR,)),
}


def _no_other_answer(client: Client) -> None:
    """Nothing else was sent for the message: no second error, no message shown to the person,
    and no traceback on standard error."""
    assert not [m for m in client.passed if "error" in m or m.get("method") == "window/showMessage"], client.passed
    assert "Traceback" not in "".join(client.stderr)


@pytest.mark.parametrize("case", UNREADABLE_BODIES, ids=UNREADABLE_BODIES)
def test_a_body_that_cannot_be_read_is_answered_with_a_parse_error(client: Client, tmp_path: Path, case: str):
    body, codes = UNREADABLE_BODIES[case]
    client.send(body)
    answer = client.wait(lambda m: "error" in m)
    assert answer["id"] is None and answer["error"]["code"] in codes, answer
    assert client.serves(tmp_path)  # a 5000-digit id did not shut it down
    _no_other_answer(client)
    logged = "".join(client.stderr)
    assert "a message body is not JSON" in logged
    if case.endswith(("-le", "-be")):  # with no byte-order mark, the other encodings' bytes are UTF-8 too
        assert "holds NUL bytes (UTF-16 or UTF-32?)" in logged
    elif "utf-16" in case or "utf-32" in case:  # a byte-order mark of theirs is not UTF-8
        assert "is not JSON in UTF-8" in logged
    if "utf-8-sig" in case:
        assert "starts with a byte-order mark" in logged


UNREADABLE_REQUESTS: dict[str, tuple[Message, int]] = {
    "method a number": ({"method": 5}, INVALID_REQUEST),
    "method a list": ({"method": ["textDocument/hover"], "params": {}}, INVALID_REQUEST),
    "method an object": ({"method": {"a": 1}}, INVALID_REQUEST),
    "unknown method, no params": ({"method": "x"}, METHOD_NOT_FOUND),
    "unknown method with params": ({"method": "x", "params": {"a": [1]}}, METHOD_NOT_FOUND),
    "unknown method, params null": ({"method": "x/y", "params": None}, METHOD_NOT_FOUND),
    "unknown method, other members": ({"method": "x", "params": {}, "extra": 1}, METHOD_NOT_FOUND),
    "a notification sent as a request": ({"method": "$/cancelRequest", "params": {"id": 1}}, METHOD_NOT_FOUND),
    "a command the server does not have": ({"method": "workspace/executeCommand", "params": {"command": "x"}}, -32602),
}


@pytest.mark.parametrize("case", UNREADABLE_REQUESTS, ids=UNREADABLE_REQUESTS)
def test_a_request_that_cannot_be_handled_gets_one_error_with_its_id(client: Client, tmp_path: Path, case: str):
    message, code = UNREADABLE_REQUESTS[case]
    for number in (client.next_id(), f"request-{client.next_id()}"):
        client.send({"jsonrpc": "2.0", "id": number, **message})
        answer = client.answer(number)
        assert answer["error"]["code"] == code and "data" not in answer["error"], answer
    assert client.serves(tmp_path)
    _no_other_answer(client)


DROPPED: dict[str, Message] = {
    "unknown, no params": {"jsonrpc": "2.0", "method": "x"},
    "unknown, other members": {"jsonrpc": "2.0", "method": "x", "params": {}, "extra": 1},
    "method a number": {"jsonrpc": "2.0", "method": 5},
    "neither method nor id": {"jsonrpc": "2.0", "params": {}},
    "JSON-RPC 1.0": {"jsonrpc": "1.0", "method": "textDocument/didOpen", "params": {}},
    "cancel of an object": {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": {"a": 1}}},
    "cancel of a list": {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": [2]}},
    "progress token an object": {
        "jsonrpc": "2.0",
        "method": "window/workDoneProgress/cancel",
        "params": {"token": {"a": 1}},
    },
    "response with error a number": {"jsonrpc": "2.0", "id": 7, "result": None, "error": 5},
    "response with error code a text": {"jsonrpc": "2.0", "id": 7, "error": {"code": "a", "message": "m"}},
    "response with id an object": {"jsonrpc": "2.0", "id": {"a": 1}, "result": 1},
    "change to a document not open": {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": "file:///nowhere/x.yaml", "version": 2}, "contentChanges": [{"text": "a"}]},
    },
}


@pytest.mark.parametrize("case", DROPPED, ids=DROPPED)
def test_a_notification_or_response_that_cannot_be_read_is_dropped(client: Client, tmp_path: Path, case: str):
    client.send(DROPPED[case])
    assert client.serves(tmp_path)
    _no_other_answer(client)
    assert len(client.stderr) <= 1, client.stderr  # at most one line in the log


# ---- framing --------------------------------------------------------------------------------------

FRAMES = {
    "huge": b"Content-Length: 99999999999999\r\n\r\n{}",
    "over the bound": b"Content-Length: %d\r\n\r\n{}" % (MAX_MESSAGE_BYTES + 1),
    "negative": b"Content-Length: -5\r\n\r\n{}",
    "not a number": b"Content-Length: abc\r\n\r\n{}",
    "garbage line": b"{}" * 5000 + b"\r\n",
}


@pytest.mark.parametrize("frame", FRAMES, ids=FRAMES)
def test_a_broken_frame_is_refused_and_the_next_message_is_served(client: Client, tmp_path: Path, frame: str):
    client.raw(FRAMES[frame])
    assert client.serves(tmp_path)
    assert client.serves(tmp_path)  # and the one after
    assert client.process.poll() is None
    if frame != "garbage line":
        assert "Content-Length" in "".join(client.stderr)  # logged


def test_a_message_at_the_bound_is_read(client: Client, tmp_path: Path):
    uri = (tmp_path / "big.yaml").as_uri()
    document = {"uri": uri, "languageId": "yaml", "version": 1, "text": "x"}
    envelope = json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": document}})
    text = "rulesengine: 1\nname: x\n#" + "\u0001" * ((MAX_MESSAGE_BYTES - len(envelope)) // 6 - 30)
    client.open(uri, text)  # each control character is six bytes of JSON
    assert [d["code"] for d in client.diagnostics(uri)] == ["RE005"]


# ---- YAML's other line breaks ---------------------------------------------------------------------


def _at(text: str, needle: str) -> tuple[int, int]:
    """The LSP line and UTF-16 character of `needle`: lines end at \\n only in these texts."""
    before = text[: text.index(needle)].split("\n")
    return len(before) - 1, len(before[-1].encode("utf-16-le")) // 2


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"], ids=["LS", "PS", "NEL"])
def test_yaml_s_other_line_breaks_do_not_move_positions(client: Client, tmp_path: Path, brk: str):
    """YAML breaks lines at U+2028, U+2029 and NEL too; an editor (and LSP) does not."""
    rules = f'rulesengine: 1\n# a{brk}# b\nname: "😀{brk}y"\nzones:\n  pile:\n'
    rules += f'    description: "😀{brk}"\n    visibility: al\n'
    uri = (tmp_path / "game.yaml").as_uri()
    client.open(uri, rules)
    found = {
        d["code"]: (d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in client.diagnostics(uri)
    }
    assert found["RE216"] == _at(rules, "al\n") and found["RE240"] == _at(rules, "pile")
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})["result"]
    zones = next(s for s in symbols if s["name"] == "zones")
    assert zones["selectionRange"]["start"] == dict(zip(("line", "character"), _at(rules, "zones")))
    broken = f'rulesengine: 1\n# a{brk}# b\nname: "😀{brk}y" @\n'
    client.notify(
        "textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}
    )
    shown = client.diagnostics(uri)
    assert [(d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in shown] == [
        ("RE001", *_at(broken, "@"))
    ]


def test_the_documented_message_bound_is_the_one_read():
    docs = (Path(__file__).resolve().parent.parent / "docs" / "tooling.md").read_text(encoding="utf-8")
    assert f"over {MAX_MESSAGE_BYTES:,} bytes" in " ".join(docs.split())  # however the line is wrapped


# ---- paths in URIs ---------------------------------------------------------------------------------


def test_a_folder_whose_name_is_not_utf8_is_found(client: Client, tmp_path: Path):
    # a client escapes the byte 0xE9 (Latin-1 'é') as %E9; it is that byte, not U+FFFD
    folder = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    try:
        os.mkdir(folder)
    except OSError:
        pytest.skip("the file system takes only UTF-8 names")
    base = Path(os.fsdecode(folder)) / "base.yaml"
    tutorial = Path(__file__).resolve().parent.parent / "examples" / "tutorial-game.yaml"
    base.write_text(tutorial.read_text(encoding="utf-8"), encoding="utf-8")
    variant = base.with_name("variant.yaml")
    text = "rulesengine: 1\nextends: base.yaml\nname: V\ndefine: {stock_left: size(stock)}\n"
    variant.write_text(text, encoding="utf-8")
    assert [d.code for d in validate_file(variant)[1]] == ["RE240"]  # unused: no error
    uri = variant.as_uri()
    assert "caf%E9" in uri
    client.open(uri, text)
    assert [d["code"] for d in client.diagnostics(uri)] == ["RE240"]
    at = {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 28}}  # on `stock`
    found = client.request("textDocument/definition", at)["result"]
    line = base.read_text(encoding="utf-8").split("\n").index("  stock: {visibility: nobody}")
    assert found["uri"] == base.as_uri() and found["range"]["start"] == {"line": line, "character": 2}


@pytest.mark.parametrize(
    "name",
    ["a%00b.yaml", "x%00.tests.yaml", "a\ud800b.yaml", "a%ED%A0%80%00.yaml"],
    ids=["nul", "nul-scenario-file", "lone-surrogate", "escaped-surrogate-and-nul"],
)
def test_a_uri_that_can_name_no_file_is_read_from_its_text_alone(client: Client, tmp_path: Path, name: str):
    # a base beside it that is read would show its syntax error
    (tmp_path / "base.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    (tmp_path / "pan.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    uri = tmp_path.as_uri() + "/" + name
    text = "rulesengine: 1\nextends: base.yaml\nruleset: pan.yaml\nname: x\n"
    client.open(uri, text)
    assert client.diagnostics(uri) == []
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})["result"]
    assert [s["name"] for s in symbols] == ([] if ".tests." in name else ["rulesengine", "extends", "ruleset", "name"])
    for method, params in _position_requests(uri).items():
        assert "error" not in client.request(method, params), method
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "rulesengine: 1\nname: [x\n"}]},
    )
    assert [d["code"] for d in client.diagnostics(uri)] == ["RE001"]
    assert not "".join(client.stderr)


def test_a_buffer_in_no_file_names_shipped_rulesets_only(client: Client, tmp_path: Path):
    # a valid rule file in the server's folder: an unsaved buffer has no folder, so it is not found
    shutil.copy(rulesets_dir() / "pan.yaml", tmp_path / "base.yaml")
    uri = "untitled:Untitled-1"
    client.open(uri, "rulesengine: 1\nextends: base.yaml\nname: x\n")
    [problem] = client.diagnostics(uri)
    assert problem["code"] == "RE012" and problem["range"]["start"] == {"line": 1, "character": 9}
    assert "save it to name files beside it" in problem["message"]
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": "rulesengine: 1\nextends: pan\nname: x\n"}],
        },
    )
    assert client.diagnostics(uri) == []
    # a scenario test file in no file cannot reach its ruleset: its text alone is read
    tests_uri = "untitled:game.tests.yaml"
    client.open(tests_uri, "ruleset: base.yaml\ntests:\n  - name: t\n    expect: {nothing: 1}\n")
    assert client.diagnostics(tests_uri) == []
    assert not "".join(client.stderr)


# ---- the end -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("shutdown", "status"), [(True, 0), (False, 1)])
def test_exit_ends_the_process_with_the_status_lsp_gives(client: Client, shutdown: bool, status: int):
    if shutdown:
        assert client.request("shutdown", None)["result"] is None
    client.notify("exit", None)
    assert client.process.wait(timeout=TIMEOUT) == status
    assert "Traceback" not in "".join(client.stderr)


@pytest.mark.parametrize("cut", range(4060, 4097))
def test_a_header_cut_by_a_read_of_the_line_is_kept_whole(cut: int):
    # the rest of a refused body, with no line break, then a message; its header starts
    # `cut` bytes into a 4096-byte piece of the line, so the piece may end inside it
    body = b'{"jsonrpc":"2.0","id":1,"method":"shutdown"}'
    message = b"Content-Length: %d\r\n\r\n" % len(body) + body
    reader = BoundedInput(io.BytesIO(b"a" * (MAX_LINE_BYTES * 3 + cut) + message))
    lines = []
    while (line := reader.readline()) and not line.startswith(b"Content-Length"):
        lines.append(line)
    assert line == b"Content-Length: %d\r\n" % len(body)
    assert reader.readline() == b"\r\n" and reader.read(len(body)) == body
    assert all(lines) and set(b"".join(lines)) == {ord("a")}


# ---- the order of the protocol ---------------------------------------------------------------------


def test_before_initialize_a_request_is_answered_not_initialized(tmp_path: Path):
    client = Client(tmp_path)
    try:
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": "file:///x.yaml", "languageId": "yaml", "version": 1, "text": "a: ["}},
        )
        answer = client.request(
            "textDocument/hover", {"textDocument": {"uri": "file:///x.yaml"}, "position": {"line": 0, "character": 0}}
        )
        assert answer["error"]["code"] == -32002 and "data" not in answer["error"]
        # also when its params could not be read: the order of the protocol comes first
        client.send({**MALFORMED["no character"][0], "id": 77, "method": "textDocument/hover"})
        assert client.answer(77)["error"]["code"] == -32002
        assert "result" in client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        client.notify("initialized", {})
        assert client.serves(tmp_path)
        assert "Traceback" not in "".join(client.stderr)
    finally:
        client.process.kill()
        client.process.wait()


def test_a_second_initialize_is_answered_invalid_request(client: Client, tmp_path: Path):
    again = client.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert again["error"]["code"] == -32600 and "already initialized" in again["error"]["message"]
    assert client.serves(tmp_path) and "Traceback" not in "".join(client.stderr)


def test_after_shutdown_a_request_is_answered_invalid_request(client: Client):
    assert client.request("shutdown", None)["result"] is None
    at = {"textDocument": {"uri": "file:///x.yaml"}, "position": {"line": 0, "character": 0}}
    assert client.request("textDocument/hover", at)["error"]["code"] == -32600
    assert client.request("shutdown", None)["error"]["code"] == -32600
    client.notify("exit", None)
    assert client.process.wait(timeout=TIMEOUT) == 0


@pytest.mark.parametrize(
    "message", [b'[{"jsonrpc": "2.0", "id": 7, "method": "shutdown"}]', b"[]", b"5", b'"x"', b"null"]
)
def test_a_message_that_is_not_an_object_is_answered_invalid_request(client: Client, tmp_path: Path, message: bytes):
    client.send(message)
    answer = client.wait(lambda m: "error" in m)
    assert answer == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": answer["error"]["message"]}}
    assert client.serves(tmp_path)
    assert "Error" not in "".join(client.stderr)


def test_an_object_inside_a_message_is_never_read_as_a_message(client: Client, tmp_path: Path):
    # JSON-RPC's members inside a document identifier and a position: members LSP does not
    # name, which a server passes over, not a message of their own
    uri = (tmp_path / "nested.yaml").as_uri()
    client.open(uri, "rulesengine: 1\nname: x\n")
    client.diagnostics(uri)
    inner = {"jsonrpc": "2.0", "id": 99, "method": "shutdown"}
    document = {"uri": uri, **inner}
    answer = client.request("textDocument/documentSymbol", {"textDocument": document})
    assert "result" in answer, answer
    answer = client.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 1, **inner}}
    )
    assert "result" in answer, answer
    assert client.serves(tmp_path)
    _no_other_answer(client)
