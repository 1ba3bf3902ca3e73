"""Play and playtest a rule file in the browser: `rulesengine serve`.

The package is split by job: `session` keeps one match (its seats, bots, undo and
replay), `views` turns a seat's observation into what the page draws, `protocol` reads
the browser's messages, `app` is the web application (pages, WebSocket, replay
download) and `server` runs it. Only `app` and `server` need the optional extra `web`
(Starlette and uvicorn); the rest is plain Python.
"""

from __future__ import annotations

INSTALL_HINT = 'pip install "rulesengine[web]"'
