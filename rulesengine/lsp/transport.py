"""How the server reads JSON-RPC messages, hardened against a client that breaks the protocol:
every request gets an answer (an error for one pygls cannot read), and no message can stop
the server."""

from __future__ import annotations

import json
import logging
import re
from typing import Any, BinaryIO

from lsprotocol.types import EXIT, INITIALIZE
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import LanguageServerProtocol

from ..limits import MAX_FILE_BYTES

logger = logging.getLogger(__name__)


class _NoTracebackForBadParams(logging.Filter):
    """pygls logs a whole exception chain for every message whose params it cannot read; such
    a request is answered with an error and logged in one line (`RulesProtocol.refuse`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        return not (text.startswith("Unable to deserialize message") and "ClassValidationError" in text)


class _NoTracebackForBadJson(logging.Filter):
    """A body that is not JSON is the client's mistake, answered with a parse error
    (`RulesProtocol.parse_error`): logged in one line, not as the exception's traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], json.JSONDecodeError):
            record.msg, record.args = "a message body is not JSON: %s", (record.exc_info[1],)
            record.exc_info = record.exc_text = None
        return True


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
        return self.stream.read(min(size, MAX_MESSAGE_BYTES))  # never more: headers were bounded


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
    """A notification whose params cannot be read: nothing answers a notification, so it is
    logged and passed over (pygls showed the client an "Error in server" message)."""

    def __init__(self, method: str) -> None:
        self.method = method


def request_id(data: dict[str, Any]) -> int | str | None:
    """The id of a request to answer with; None (answered as such) if it is not a valid one."""
    found = data.get("id")
    return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None


def is_request(data: object) -> bool:
    """Whether a message asks for an answer: it has a method and an id."""
    return isinstance(data, dict) and isinstance(data.get("method"), str) and "id" in data


class RulesProtocol(LanguageServerProtocol):
    """pygls's protocol, except that a request it cannot read (params of the wrong shape, not
    JSON-RPC 2.0) is answered with an error carrying its id: pygls only logged it, and the
    client waited for ever."""

    initialize_seen = False

    def structure_message(self, data: dict[str, Any]) -> Any:
        # Called for every JSON object of a message (pygls reads those with "jsonrpc" as
        # messages), the message itself last.
        if is_request(data) and "jsonrpc" in data:
            if data["jsonrpc"] != JSONRPC_VERSION or request_id(data) is None:
                return Refused(request_id(data), JsonRpcInvalidRequest("not a JSON-RPC 2.0 request"))
            if not self.initialize_seen and data["method"] not in (INITIALIZE, EXIT):  # its params unread
                return Refused(request_id(data), JsonRpcServerNotInitialized("the server is not initialized"))
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if not is_request(data):
                if isinstance(error, JsonRpcInvalidParams) and isinstance(data.get("method"), str):
                    return Dropped(data["method"])
                raise
            if isinstance(error, JsonRpcInvalidParams):
                error = JsonRpcInvalidParams(f"invalid params for {data['method']}")
            return Refused(request_id(data), error)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Refused):
            self.refuse(message.id, message.error)
        elif isinstance(message, Dropped):
            logger.warning("ignored %s: its params cannot be read", message.method[:80])
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
        else:
            if getattr(message, "method", None) == INITIALIZE:
                self.initialize_seen = True
            super().handle_message(message)

    def parse_error(self) -> None:
        """JSON-RPC's answer to a body that is not JSON: its id cannot be known."""
        self.refuse(None, JsonRpcParseError("the message is not JSON"))

    def refuse(self, message_id: int | str | None, error: JsonRpcException) -> None:
        logger.warning("refused request %r: %s", message_id, error.message)
        # Built here: pygls's response types leave out an id that is None, which JSON-RPC
        # requires as null when the request's id cannot be read.
        error_object = {"code": error.code, "message": error.message}
        self._send_data({"jsonrpc": JSONRPC_VERSION, "id": message_id, "error": error_object})
