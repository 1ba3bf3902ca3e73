"""The messages between a page and the server, as JSON objects over a WebSocket.

From the page (each an object with a "type"):

    {"type": "act", "action": ID, "version": V}   play a legal action seen at position V
    {"type": "undo"}                              take back your last move (alone against bots)
    {"type": "new", "seed": S or null}            a new match (a fresh seed when null)
    {"type": "reveal"}                            hot seat: the next person has the screen
    {"type": "refresh"}                           send the current position again

From the server: {"type": "state", ...} (what the seat may see, see `session.message`),
{"type": "handover", "seat": P, ...} (hot seat: pass the screen to P) and
{"type": "error", "message": TEXT} (a refused or malformed message; nothing changed).
"""

from __future__ import annotations

import json
from typing import Any

MAX_MESSAGE_BYTES = 2_048  # a page's message is a few dozen bytes; anything longer is refused unread
_FIELDS: dict[str, dict[str, bool]] = {  # type -> its fields, and whether each is required
    "act": {"action": True, "version": True},
    "undo": {},
    "new": {"seed": False},
    "reveal": {},
    "refresh": {},
}


class BadMessage(Exception):
    """A message that is not one of the protocol's; its text says what was expected."""


def read(text: str | bytes) -> dict[str, Any]:
    """A page's message as a checked object; BadMessage for anything else."""
    if _size(text) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"a message is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        raise BadMessage("a message is a JSON object") from None
    if not isinstance(message, dict):
        raise BadMessage("a message is a JSON object")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise BadMessage(f'a message\'s "type" is one of {", ".join(_FIELDS)}')
    fields = _FIELDS[kind]
    for name in message:
        if name != "type" and name not in fields:
            raise BadMessage(f'a "{kind}" message has no field "{_printable(name[:40])}"')
    for name, required in fields.items():
        if required and name not in message:
            raise BadMessage(f'a "{kind}" message needs "{name}"')
        value = message.get(name)
        if name in message and not (value is None and not required) and not _whole(value):
            raise BadMessage(f'"{name}" is a whole number')
    return message


def _size(text: str | bytes) -> int:
    """The length in bytes of a message as it came over the wire (UTF-8)."""
    if isinstance(text, bytes):
        return len(text)
    if len(text) > MAX_MESSAGE_BYTES:  # too long already in characters: no need to encode it
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _printable(name: str) -> str:
    """A name from a page, as text that can be sent back: JSON may spell a lone surrogate,
    which no UTF-8 frame can carry, so it is shown escaped."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53


def error(text: str) -> dict[str, Any]:
    return {"type": "error", "message": text}
