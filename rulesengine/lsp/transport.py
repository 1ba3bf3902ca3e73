"""How the server reads JSON-RPC messages, hardened against a client that breaks the protocol:
every request gets an answer (an error for one pygls cannot read), and no message can stop
the server."""

from __future__ import annotations

import json
import logging
import re
import sys
from typing import Any, BinaryIO, TypeGuard
from urllib.parse import unquote

import attrs
import cattrs
from lsprotocol.types import CANCEL_REQUEST, EXIT, INITIALIZE, TEXT_DOCUMENT_DID_CHANGE
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcMethodNotFound,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, LanguageServerProtocol, default_converter

from ..limits import MAX_FILE_BYTES

logger = logging.getLogger(__name__)


class _NoTracebackForBadParams(logging.Filter):
    """pygls logs a whole exception chain for every message it cannot turn into its types;
    `RulesProtocol._read` answers or passes over every such message, and logs it
    in one line (`RulesProtocol.refuse`, `Dropped`). It logs one, too, for a request answered
    with the error its handler chose to raise."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("Unable to deserialize message"):
            return False
        error = record.exc_info[1] if record.exc_info else None
        args = record.args if isinstance(record.args, tuple) else ()
        answered = str(record.msg).startswith("Exception occurred for message") and len(args) == 1  # args: its id
        if answered and isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            # an error a handler answers a request with on purpose (an unknown command to
            # workspace/executeCommand): the client has it, the log needs no traceback
            record.msg, record.args = "answered request %r with error %s: %s", (args[0], error.code, error)
            record.exc_info = record.exc_text = None
        return True


class _NoTracebackForBadJson(logging.Filter):
    """A body that cannot be read as JSON is the client's mistake, answered with a parse error
    (`RulesProtocol.parse_error`): logged in one line, not as the exception's traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and (problem := unreadable_body(record.exc_info[1])) is not None:
            record.msg, record.args = "a message body %s", (problem,)
            record.exc_info = record.exc_text = None
        return True


def unreadable_body(error: BaseException | None) -> str | None:
    """What is wrong with a message body, said in a few words, when `error` is one that
    `json.loads` raises for a body it cannot read (the only thing that reaches pygls's reading
    loop: `RulesProtocol` reads or refuses every message, and handles it without raising);
    None for any other error."""
    if isinstance(error, json.JSONDecodeError) and error.doc.startswith("\ufeff"):
        return "is not JSON in UTF-8 as LSP sends it: it starts with a byte-order mark"
    if isinstance(error, json.JSONDecodeError) and "\0" in error.doc:
        return "is not JSON in UTF-8 as LSP sends it: it holds NUL bytes (UTF-16 or UTF-32?)"
    if isinstance(error, json.JSONDecodeError):
        return f"is not JSON: {error}"
    if isinstance(error, UnicodeDecodeError):
        return f"is not JSON in UTF-8: {error}"
    if isinstance(error, RecursionError):
        return "is not JSON the server can read: its arrays or objects are nested too deeply"
    if isinstance(error, ValueError) and "integer string conversion" in str(error):
        limit = sys.get_int_max_str_digits()
        return f"is not JSON the server can read: it has a number of more than {limit:,} digits"
    if isinstance(error, ValueError):
        return f"is not JSON the server can read: {error}"
    return None


logging.getLogger("pygls.protocol.json_rpc").addFilter(_NoTracebackForBadParams())
_BAD_JSON = _NoTracebackForBadJson()
logging.getLogger("pygls.server").addFilter(_BAD_JSON)  # the logger the server gives its reading loop
logging.getLogger("pygls.io_").addFilter(_BAD_JSON)

JSONRPC_VERSION = "2.0"

# The largest message read: a document at the size limit with every character escaped as
# \uXXXX in JSON, and room for the message around it. A document larger than the limit is
# refused (RE005) whole anyway.
MAX_MESSAGE_BYTES = 6 * MAX_FILE_BYTES + 65_536
HEADER = b"Content-Length:"
MAX_LINE_BYTES = 4096  # read at a time while looking for a header
MAX_HEADER_BYTES = 64  # a Content-Length header with any length it may carry, and more
_LENGTH = re.compile(rb"Content-Length: *(\d+)\r?\n")


class BoundedInput:
    """The client's input as pygls reads it (a header line at a time, then a body of the
    length the header gives), except that a Content-Length that is negative, not a number or
    larger than MAX_MESSAGE_BYTES is refused and logged: the body it announces is then passed
    over up to the next header. pygls trusted the length: a huge one ran out of memory, one it
    could not read left it reading the next header as part of the lost body, for ever."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.pending = b""  # the end of a piece of line that may begin a header

    def readline(self) -> bytes:
        piece = self.stream.readline(MAX_LINE_BYTES)
        line, self.pending = self.pending + piece, b""
        if len(piece) == MAX_LINE_BYTES and not piece.endswith(b"\n"):  # a header may straddle the cut
            # kept whole for the next piece; what is returned is never empty (pending is short)
            keep = _header_start(line)
            line, self.pending = line[:keep], line[keep:]
        start = line.find(HEADER)
        if start > 0:  # a header after the rest of a refused or short body
            logger.warning("skipped %d bytes before a header", start)
            line = line[start:]
        if line.startswith(HEADER):
            return _length_header(line)
        return line  # b"" only at the end of the input, which ends the server

    def read(self, size: int) -> bytes:
        return Utf8Body(self.stream.read(min(size, MAX_MESSAGE_BYTES)))  # never more: headers were bounded


class Utf8Body(bytes):
    """A message body, which LSP sends in UTF-8 only. `json.loads` guesses the encoding of
    bytes from their first ones (UTF-16 and UTF-32, with or without a byte-order mark) and
    lets encoded surrogates through; this body decodes as UTF-8, strictly, whatever is asked:
    anything else is a parse error."""

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        return bytes.decode(self, "utf-8")


def _header_start(line: bytes) -> int:
    """Where a header that the next piece of the line may complete starts in `line` (its
    length when none can): the last whole `Content-Length:` with room for its digits after
    it, else the longest end of the line that begins one."""
    whole = line.rfind(HEADER)
    if whole >= 0 and len(line) - whole <= MAX_HEADER_BYTES:
        return whole
    for size in range(min(len(HEADER) - 1, len(line)), 0, -1):
        if line.endswith(HEADER[:size]):
            return len(line) - size
    return len(line)


def _length_header(line: bytes) -> bytes:
    """A Content-Length header as pygls reads it, or one it passes over if refused."""
    match = _LENGTH.fullmatch(line)
    if match is None or int(match.group(1)) > MAX_MESSAGE_BYTES:
        logger.warning("refused %r: not a length of at most %d bytes", line.strip()[:80], MAX_MESSAGE_BYTES)
        return b"X-Refused: Content-Length\r\n"
    return b"Content-Length: %d\r\n" % int(match.group(1))


class Refused:
    """A request that cannot be handled, in place of the message pygls could not read."""

    def __init__(self, message_id: int | str | None, error: JsonRpcException) -> None:
        self.id = message_id
        self.error = error


class Dropped:
    """A notification or a response that cannot be read: nothing answers either, so it is
    logged in one line and passed over (pygls showed the client an "Error in server" message)."""

    def __init__(self, what: str, why: str) -> None:
        self.what = what
        self.why = why


def request_id(data: dict[str, Any]) -> int | str | None:
    """The id of a request to answer with; None (answered as such) if it is not a valid one."""
    found = data.get("id")
    return found if is_id(found) else None


def is_id(value: object) -> TypeGuard[int | str]:
    """Whether `value` is an id, or another `integer | string` of LSP (a progress token)."""
    return isinstance(value, (int, str)) and not isinstance(value, bool)


def is_request(data: object) -> bool:
    """Whether a message asks for an answer: it has a method (of whatever type) and an id."""
    return isinstance(data, dict) and "method" in data and "id" in data


def _int_or_str(value: object, _: object) -> int | str:
    if is_id(value):
        return value
    raise TypeError(f"{type(value).__name__} is neither an integer nor a string")


def strict_converter() -> cattrs.Converter:
    """pygls's converter, except that LSP's `integer | string` (a request's id in
    `$/cancelRequest`, a progress token) must be one: lsprotocol let any value through, and
    an object there was a TypeError deep in pygls (an unhashable key)."""
    converter = default_converter()
    converter.register_structure_hook(int | str, _int_or_str)  # equal to the Union[int, str] lsprotocol names
    return converter


def _unreadable(data: dict[str, Any]) -> Dropped | None:
    """Why a notification or a response is passed over before its params are read, if it is."""
    method = data.get("method")
    if "method" in data and not isinstance(method, str):
        return Dropped("a notification", "its method is not a string")
    if "method" not in data and "id" not in data:
        return Dropped("a message", "it has neither a method nor an id")
    if "method" not in data and data["id"] is not None and request_id(data) is None:
        return Dropped("a response", "its id is neither an integer nor a string")
    if data["jsonrpc"] != JSONRPC_VERSION:
        return Dropped(_named(method) if isinstance(method, str) else "a response", "it is not JSON-RPC 2.0")
    return None


def _is_notification_type(kind: type | None) -> bool:
    """Whether an lsprotocol message type is a notification's: one without an id."""
    return kind is not None and attrs.has(kind) and "id" not in attrs.fields_dict(kind)


def _named(method: str) -> str:
    """A method as logged: one short line, whatever the client sent."""
    return method[:80] if method[:80].isprintable() else repr(method[:80])


class RulesProtocol(LanguageServerProtocol):
    """pygls's protocol, except that a request it cannot read (params of the wrong shape, not
    JSON-RPC 2.0, a method that is not a string) is answered with an error carrying its id:
    pygls only logged it, and the client waited for ever; and a notification or response it
    cannot read is passed over with one line in the log."""

    initialize_seen = False

    def structure_message(self, data: dict[str, Any]) -> Any:
        # Called by pygls for every JSON object of a body as it is parsed, the innermost first
        # and the message itself last, which pygls read as a message if it had "jsonrpc": an
        # object inside a message with such a member (a position, say) became a message too.
        # Every object stays as it is; `handle_message` reads the whole one (`_read`).
        return data

    def _read(self, data: dict[str, Any]) -> Any:
        """The message `data` (a JSON object with "jsonrpc") in pygls's types. It never
        raises: a message that cannot be read becomes Refused (a request) or Dropped (a
        notification or a response)."""
        refused = self.refusal(data) if is_request(data) else _unreadable(data)
        if refused is not None:
            return refused
        method = data.get("method")
        if isinstance(method, str) and not self.handles(method):
            # Read without its params: pygls's types for a method lsprotocol does not know
            # need them, which JSON-RPC lets a message leave out. Nothing handles it: a request
            # is answered -32601 (method not found) and a notification ignored.
            if is_request(data):
                return JsonRPCRequestMessage(data["id"], method, JSONRPC_VERSION, data.get("params"))
            return JsonRPCNotification(method, JSONRPC_VERSION, data.get("params"))
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if is_request(data):
                if isinstance(error, JsonRpcInvalidParams):
                    error = JsonRpcInvalidParams(f"invalid params for {_named(data['method'])}")
                return Refused(request_id(data), error)
            if isinstance(method, str):
                return Dropped(_named(method), "its params cannot be read")
            return Dropped("a response", "it cannot be read")

    def refusal(self, data: dict[str, Any]) -> Refused | None:
        """Why a request is answered with an error before its params are read, if it is."""
        method = data["method"]
        if data["jsonrpc"] != JSONRPC_VERSION or request_id(data) is None:
            return Refused(request_id(data), JsonRpcInvalidRequest("not a JSON-RPC 2.0 request"))
        if not isinstance(method, str):
            return Refused(request_id(data), JsonRpcInvalidRequest("the method of a request must be a string"))
        if not self.initialize_seen and method not in (INITIALIZE, EXIT):
            return Refused(request_id(data), JsonRpcServerNotInitialized("the server is not initialized"))
        if self.initialize_seen and method == INITIALIZE:  # LSP: sent once; a second would reset the session
            return Refused(request_id(data), JsonRpcInvalidRequest("the server is already initialized"))
        if method != EXIT and _is_notification_type(self.get_message_type(method)):
            # lsprotocol would read it as the notification, which is never answered; an exit
            # with an id still ends the server
            error = JsonRpcMethodNotFound(f"{_named(method)} is a notification, not a request")
            return Refused(request_id(data), error)
        return None

    def handles(self, method: str) -> bool:
        """Whether the server does anything with a message of `method`."""
        return method == CANCEL_REQUEST or method in self.fm.builtin_features or method in self.fm.features

    def handle_message(self, message: Any) -> None:
        if isinstance(message, dict) and "jsonrpc" in message:
            message = self._read(message)
        if isinstance(message, Refused):
            self.refuse(message.id, message.error)
        elif isinstance(message, Dropped):
            logger.warning("ignored %s: %s", message.what, message.why)
        elif isinstance(message, dict):  # a JSON object that is not JSON-RPC at all
            if is_request(message):
                self.refuse(request_id(message), JsonRpcInvalidRequest("not a JSON-RPC 2.0 request"))
            else:
                logger.warning("ignored a message that is not JSON-RPC 2.0")
        elif not hasattr(message, "jsonrpc"):  # a batch (an array) or a bare value: LSP sends objects
            self.refuse(None, JsonRpcInvalidRequest("a message must be a JSON object"))
        elif not self.initialize_seen and getattr(message, "method", None) not in (INITIALIZE, EXIT):
            if hasattr(message, "method") and hasattr(message, "id"):
                self.refuse(message.id, JsonRpcServerNotInitialized("the server is not initialized"))
            else:  # LSP: a notification before initialize is dropped
                logger.warning("ignored %s before initialize", getattr(message, "method", "a response"))
        elif self._shutdown and getattr(message, "method", EXIT) != EXIT and hasattr(message, "id"):
            # pygls drops requests after shutdown; LSP answers them with an error
            self.refuse(message.id, JsonRpcInvalidRequest("the server is shutting down"))
        elif getattr(message, "method", None) == TEXT_DOCUMENT_DID_CHANGE and not self.is_open(message):
            # pygls raised KeyError, shown to the person as "Error in server"
            logger.warning("ignored %s: the document is not open", TEXT_DOCUMENT_DID_CHANGE)
        else:
            if getattr(message, "method", None) == INITIALIZE:
                self.initialize_seen = True
            try:
                super().handle_message(message)
            except Exception:
                # pygls answers a request whatever its handler raises: what gets here is pygls
                # failing on a message it has read. Kept from the reading loop, which takes
                # what reaches it for a body that cannot be read (see unreadable_body).
                logger.exception("could not handle %s", _named(getattr(message, "method", "a response")))
                if hasattr(message, "method") and hasattr(message, "id"):
                    self.refuse(message.id, JsonRpcInternalError("the server could not handle the request"))

    def is_open(self, message: Any) -> bool:
        """Whether the document a notification names is open (keyed as pygls keys it)."""
        uri = message.params.text_document.uri
        return self._workspace is not None and unquote(uri) in self._workspace.text_documents

    def parse_error(self, problem: str) -> None:
        """JSON-RPC's answer to a body that cannot be read as JSON: its id cannot be known."""
        self.refuse(None, JsonRpcParseError(f"the message {problem}"))

    def refuse(self, message_id: int | str | None, error: JsonRpcException) -> None:
        cause = f" ({type(error.__cause__).__name__})" if error.__cause__ is not None else ""
        logger.warning("refused request %r: %s%s", message_id, error.message, cause)
        # Built here: pygls's response types leave out an id that is None, which JSON-RPC
        # requires as null when the request's id cannot be read.
        error_object = {"code": error.code, "message": error.message}
        self._send_data({"jsonrpc": JSONRPC_VERSION, "id": message_id, "error": error_object})
