"""Where the matches are played: in this process, in a pool of local processes, or as Ray
tasks. Every backend plays the same matches (match k always uses seed S+k) and the
records are put in match order, so the statistics do not depend on the backend.

Ctrl-C stops every backend within about a second: the records gathered so far are
returned with `interrupted` set, and the caller reports them as partial statistics.
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Generator, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

import attrs

from ..diagnostics import is_whole_number_text, printable
from .playout import Plan, Recording

if TYPE_CHECKING:
    from multiprocessing.pool import AsyncResult

Progress = Callable[[int], None]
_POLL = 0.2  # seconds between checks for finished work (and for Ctrl-C)
_AHEAD = 3  # batches handed out per worker at a time: enough to keep it busy, few to cancel
MAX_WORKERS = 1024  # -j above this is a typo, not a machine: each worker is a process
# Seconds to wait for a Ray cluster's address to accept a connection. Ray itself retries an
# address where nothing answers for many minutes; a live head answers at once.
CONNECT_TIMEOUT = 5.0


@attrs.define
class Outcome:
    games: int  # matches done (their records were handed over)
    interrupted: bool
    seconds: float
    workers: int
    backend: str


class BackendError(Exception):
    """A backend cannot be used (an extra not installed, no cluster at the address)."""


def resolve_workers(text: str | int) -> int:
    """`-j`: a number from 1 to MAX_WORKERS, or `auto` for the cores this process may use."""
    if isinstance(text, int):
        value = text
    elif str(text).strip().lower() == "auto":
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on every platform
            return max(1, os.cpu_count() or 1)
    elif is_whole_number_text(str(text)):
        if len(str(text)) > 9:  # past the limit below (and int() refuses thousands of digits)
            raise ValueError(f"-j takes at most {MAX_WORKERS} workers, not {text}")
        value = int(text)
    else:
        raise ValueError(f"-j takes a number of workers or 'auto', not '{printable(str(text))}'")
    if value < 1:
        raise ValueError(f"-j takes a positive number of workers, not {value}")
    if value > MAX_WORKERS:
        raise ValueError(f"-j takes at most {MAX_WORKERS} workers, not {value}")
    return value


def _chunks(games: int, workers: int) -> Iterator[range]:
    """Batches of match indices: small enough to share out evenly and to stop soon."""
    size = max(1, min(25, games // (workers * 8) or 1))
    return (range(low, min(low + size, games)) for low in range(0, games, size))


_recording: Recording | None = None  # one per worker process, compiled on its first chunk


def _local(plan: Plan) -> Recording:
    """This process's recording of `plan`, compiled once."""
    global _recording
    if _recording is None or _recording.plan != plan:
        from ..api import make_game

        game = make_game(plan.ruleset_file, players=plan.players, options=plan.options, max_steps=plan.max_steps)
        _recording = Recording(game, plan)
    return _recording


def playing() -> int:
    """The decisions made so far in the match this process is playing, if it plays one (with
    one local worker: the run's own process); 0 otherwise."""
    recording = _recording
    return recording.playing() if recording is not None else 0


# A local pool's count of the decisions each worker has played (one place per worker, in
# memory the processes share), so that a progress bar advances while long matches are played
# and not only when a batch of them ends. None outside a pool.
_pool_played: Any = None
_finished = 0  # in a pool worker: the decisions of the matches it has ended


def decisions_played(handed: int) -> int:
    """The decisions played so far, for a progress bar: `handed` (those of the matches whose
    records were handed over) and those of the matches in progress; with a local pool, each
    worker's own count (a little behind: it is written every `_POLL` seconds)."""
    played = _pool_played
    if played is not None:
        return max(handed, sum(played))
    return handed + playing()


def play_chunk(plan: Plan, indices: range) -> list[dict[str, Any]]:
    """Play the matches `indices` of `plan` (in a worker: compiles the game once per process)."""
    global _finished
    recording = _local(plan)
    records = []
    for index in indices:
        records.append(recording.play(index))
        _finished += records[-1]["decisions"]
    return records


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends the workers


def _start_pool_worker(played: Any, places: Any) -> None:
    """A pool worker's start: Ctrl-C left to the parent, and a thread that keeps this worker's
    count of decisions played in its own place of `played` (`places` hands them out)."""
    global _finished
    _ignore_interrupts()
    _finished = 0  # a forked worker starts from the parent's figure
    with places.get_lock():
        place = places.value
        places.value += 1
    threading.Thread(target=_report_played, args=(played, place), daemon=True).start()


def _report_played(played: Any, place: int) -> None:
    highest = 0  # never lower: a match ended is counted once `_finished` is raised, a moment after
    while True:
        highest = max(highest, _finished + playing())
        played[place] = highest
        time.sleep(_POLL)


def run(
    plan: Plan,
    recording: Recording | None,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: Progress | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> Outcome:
    """Play the plan's matches and hand each record to `on_record` in match order (a record
    waits for those before it; after Ctrl-C the ones still waiting follow in order), with
    `progress(done)` after each batch. `recording` plays the matches of one local worker
    (made here if None). No record is kept here: a long run takes what `on_record` keeps."""
    start = time.perf_counter()
    waiting: dict[int, dict[str, Any]] = {}
    handed = done = 0
    interrupted = False
    workers = max(1, min(workers, plan.games))  # a worker without a match to play is a process for nothing
    batches = _batches(plan, recording, workers, backend, address)
    with _CtrlC() as ctrl_c:
        try:
            for batch in ctrl_c.awaited(batches):
                for record in batch:
                    waiting[record["index"]] = record
                done += len(batch)
                while handed in waiting:
                    record = waiting.pop(handed)
                    handed += 1
                    if on_record is not None:
                        on_record(record)
                if progress is not None:
                    progress(done)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            batches.close()  # ends the workers at once, also when `on_record` fails
        for index in sorted(waiting):  # done after a match that was not (stopped by Ctrl-C)
            if on_record is not None:
                on_record(waiting[index])
        interrupted = interrupted or ctrl_c.pressed  # pressed while the last records were handed over
    return Outcome(done, interrupted, time.perf_counter() - start, workers, backend)


class _CtrlC:
    """Ctrl-C stops a run only while it waits for matches: pressed while records are handed
    over (a line of the matches file half written, a match counted and not written), it takes
    effect when the run next waits. Only Python's own handling is replaced, in the main thread
    (the only one signals reach): an ignored Ctrl-C or a caller's handler is left alone."""

    def __init__(self) -> None:
        self.waiting = False
        self.pressed = False
        self._installed = False

    def __enter__(self) -> _CtrlC:
        try:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, self._on_signal)
                self._installed = True
        except ValueError:  # not the main thread
            pass
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _on_signal(self, signum: int, frame: object) -> None:
        self.pressed = True
        if self.waiting:
            raise KeyboardInterrupt

    def awaited(self, batches: Iterator[list[dict[str, Any]]]) -> Iterator[list[dict[str, Any]]]:
        """The batches, Ctrl-C raising KeyboardInterrupt only while the next one is awaited."""
        while True:
            self.waiting = True
            try:
                if self.pressed:
                    raise KeyboardInterrupt
                batch = next(batches, None)
            finally:
                self.waiting = False
            if batch is None:
                return
            yield batch


def _batches(
    plan: Plan, recording: Recording | None, workers: int, backend: str, address: str | None
) -> Generator[list[dict[str, Any]], None, None]:
    """The records of the plan's matches, a batch at a time, from the chosen backend."""
    global _recording
    if recording is not None:
        _recording = recording  # a worker forked from this process finds it compiled
    if backend == "ray":
        yield from _ray(plan, workers, address)
    elif workers > 1:
        yield from _pool(plan, workers)
    else:
        local = recording if recording is not None else _local(plan)  # compiled here: Ctrl-C stops it too
        for index in range(plan.games):
            yield [local.play(index)]


def _pool(plan: Plan, workers: int) -> Iterator[list[dict[str, Any]]]:
    import multiprocessing

    global _pool_played
    context = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    played = context.Array("q", workers, lock=False)  # one writer per place: no lock needed
    pool = context.Pool(workers, initializer=_start_pool_worker, initargs=(played, context.Value("i", 0)))
    _pool_played = played
    try:
        chunks = _chunks(plan.games, workers)
        pending = [pool.apply_async(play_chunk, (plan, chunk)) for chunk in islice(chunks, workers * _AHEAD)]
        while pending:
            pending[0].wait(_POLL)  # a short wait, so Ctrl-C is seen at once
            still: list[AsyncResult[Any]] = []
            for job in pending:
                if job.ready():
                    yield job.get()
                    still.extend(pool.apply_async(play_chunk, (plan, chunk)) for chunk in islice(chunks, 1))
                else:
                    still.append(job)
            pending = still
        pool.close()
    finally:
        _pool_played = None
        pool.terminate()  # stops unfinished matches at once (after Ctrl-C or an error)
        pool.join()


def check_reachable(address: str, timeout: float | None = None) -> None:
    """Raise BackendError unless a gRPC server, as Ray's head is, answers at `address`
    (HOST:PORT, or ray://HOST:PORT for Ray Client) within `timeout` seconds (CONNECT_TIMEOUT
    unless given): where nothing answers, or something else does, Ray would retry for many
    minutes. A word such as `auto` is left to Ray, which answers at once."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return
    if not 0 < int(port) < 65536:  # the system would take it modulo 65536, another port
        raise BackendError(f"cannot start or reach a Ray cluster at {address}: {port} is not a port")
    wait = CONNECT_TIMEOUT if timeout is None else timeout
    over_tls = os.environ.get("RAY_USE_TLS", "0") not in ("", "0")  # no plain-text answer then: left to Ray
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=wait) as connection:
            speaks_grpc = True if over_tls else _answers_http2(connection)
    except OSError as error:  # refused, unreachable, no such host
        reason = "no answer" if isinstance(error, TimeoutError) else getattr(error, "strerror", None) or error
        raise BackendError(f"cannot start or reach a Ray cluster at {address}: {reason}") from None
    if not speaks_grpc:
        raise BackendError(
            f"cannot start or reach a Ray cluster at {address}: what answers there does not speak Ray's protocol "
            "(gRPC); give the address of the cluster's head (as `ray start --head` prints it)"
        )


# What an HTTP/2 client sends first: the connection preface and an empty SETTINGS frame.
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _answers_http2(connection: socket.socket) -> bool:
    """Whether the server on `connection` answers an HTTP/2 preface as a gRPC server (Ray's
    head, its client server) does, with a SETTINGS frame. Ray would keep retrying for
    minutes with a server that does not (a web server, an SSH daemon, a silent listener)."""
    connection.sendall(_HTTP2_PREFACE)
    received = b""
    try:
        while len(received) < 4:
            chunk = connection.recv(9 - len(received))
            if not chunk:
                break
            received += chunk
    except TimeoutError:
        return False
    return len(received) >= 4 and received[3] == 4  # a frame header's fourth byte is its type


def _ray(plan: Plan, workers: int, address: str | None) -> Iterator[list[dict[str, Any]]]:
    try:
        import ray
    except ImportError:
        raise BackendError("--backend ray needs the extra 'ray': pip install 'rulesengine[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            check_reachable(address)
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        except Exception as error:  # Ray raises several kinds when no cluster answers
            raise BackendError(
                f"cannot start or reach a Ray cluster{f' at {address}' if address else ''}: {error}"
            ) from None
    task = ray.remote(play_chunk)
    chunks = _chunks(plan.games, workers)
    pending = [task.remote(plan, chunk) for chunk in islice(chunks, workers * _AHEAD)]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=len(pending), timeout=_POLL)
            pending.extend(task.remote(plan, chunk) for chunk in islice(chunks, len(done)))
            for ref in done:
                try:
                    batch = ray.get(ref)
                except ray.exceptions.RayTaskError as error:  # the task's own error, as -j 1 raises it
                    cause = getattr(error, "cause", None)
                    raise (cause if isinstance(cause, Exception) else error) from None
                yield batch
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started_here and address is None:
            ray.shutdown()
