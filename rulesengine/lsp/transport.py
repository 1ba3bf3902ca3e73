"""How the server reads JSON-RPC messages, hardened against a client that breaks the protocol:
every request gets an answer (an error for one pygls cannot read), and no message can stop
the server."""

from __future__ import annotations

import logging
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol

logger = logging.getLogger(__name__)

JSONRPC_VERSION = "2.0"


class Refused:
    """A request that cannot be handled, in place of the message pygls could not read."""

    def __init__(self, message_id: int | str | None, error: JsonRpcException) -> None:
        self.id = message_id
        self.error = error


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

    def structure_message(self, data: dict[str, Any]) -> Any:
        # Called for every JSON object of a message (pygls reads those with "jsonrpc" as
        # messages), the message itself last.
        if is_request(data) and "jsonrpc" in data:
            if data["jsonrpc"] != JSONRPC_VERSION or request_id(data) is None:
                return Refused(request_id(data), JsonRpcInvalidRequest("not a JSON-RPC 2.0 request"))
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if not is_request(data):
                raise
            if isinstance(error, JsonRpcInvalidParams):
                error = JsonRpcInvalidParams(f"invalid params for {data['method']}")
            return Refused(request_id(data), error)

    def handle_message(self, message: Any) -> None:
        if isinstance(message, Refused):
            self.refuse(message.id, message.error)
        elif isinstance(message, dict):  # a JSON object that is not JSON-RPC at all
            if is_request(message):
                self.refuse(request_id(message), JsonRpcInvalidRequest("not a JSON-RPC 2.0 request"))
            else:
                logger.warning("ignored a message that is not JSON-RPC 2.0")
        else:
            super().handle_message(message)

    def refuse(self, message_id: int | str | None, error: JsonRpcException) -> None:
        logger.warning("refused request %r: %s", message_id, error.message)
        # Built here: pygls's response types leave out an id that is None, which JSON-RPC
        # requires as null when the request's id cannot be read.
        error_object = {"code": error.code, "message": error.message}
        self._send_data({"jsonrpc": JSONRPC_VERSION, "id": message_id, "error": error_object})
