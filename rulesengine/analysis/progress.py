"""A progress bar (matches done, rate, time left) on a terminal; nothing elsewhere."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def progress_bar(
    total: int, label: str, enabled: bool, decisions: Callable[[], int] | None = None
) -> Iterator[Callable[[int], None] | None]:
    """Yields `update(done)`, or None when the bar is off (not a terminal, --json, or no rich).
    `decisions()`, if given, is read at every refresh: the decisions played so far, shown so
    that a long match (searching agents) is seen to go on before it ends."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        from rich.text import Text
    except ImportError:  # the optional extra is not installed
        yield None
        return

    class Decisions(TextColumn):
        def __init__(self, count: Callable[[], int]):
            super().__init__("")
            self.count = count

        def render(self, task: object) -> Text:
            return Text(f"{self.count():,} decisions")

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f} matches/s"),
        *([Decisions(decisions)] if decisions is not None else []),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total, rate=0.0)

        def update(done: int) -> None:
            speed = bar.tasks[0].speed or 0.0
            bar.update(task, completed=done, rate=speed)

        yield update
