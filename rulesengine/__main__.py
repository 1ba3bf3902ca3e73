"""`python -m rulesengine …` runs the command line, as the `rulesengine` command does."""

from .cli import entry

entry()
