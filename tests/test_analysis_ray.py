"""The Ray backend: a local cluster plays the same matches as one process does."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

import rulesengine
from rulesengine.analysis import BackendError, analyse, backends
from rulesengine.analysis.backends import check_reachable
from rulesengine.cli import main

ray = pytest.importorskip("ray", reason="the Ray backend needs the extra 'ray'")
TIMING = ("seconds", "matches_per_second", "decisions_per_second", "workers", "backend")


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _without_timing(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in TIMING}


def test_ray_tasks_give_the_statistics_of_one_process(cluster):
    game = rulesengine.make_game("padvinderspel", players=3)
    alone = analyse(game, 12, seed=11, probe=False)
    on_ray = analyse(game, 12, seed=11, workers=2, backend="ray", probe=False)
    assert on_ray["backend"] == "ray" and on_ray["games"] == 12
    assert _without_timing(on_ray) == _without_timing(alone)


def test_simulate_command_runs_on_ray(cluster):
    result = CliRunner().invoke(
        main, ["simulate", "padvinderspel", "-p", "3", "-n", "6", "--backend", "ray", "-j", "2", "--json"]
    )
    assert result.exit_code == 0, result.output
    local = CliRunner().invoke(main, ["simulate", "padvinderspel", "-p", "3", "-n", "6", "--json"])
    assert _without_timing(json.loads(result.output)) == _without_timing(json.loads(local.output))


@pytest.fixture
def closed_port():
    """A port of this machine that refuses connections: bound, so no one else takes it, but
    not listening."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


def test_an_address_where_nothing_listens_is_a_one_line_error_not_minutes_of_retries(closed_port, monkeypatch):
    def retries_for_minutes(*arguments, **keywords):
        raise AssertionError("Ray was asked to connect to an address where nothing listens")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a command of its own
    monkeypatch.setattr(ray, "init", retries_for_minutes)
    address = f"127.0.0.1:{closed_port}"
    result = CliRunner().invoke(main, ["simulate", "padan", "-n", "2", "--backend", "ray", "--address", address])
    assert result.exit_code == 2, result.output
    assert f"Error: cannot start or reach a Ray cluster at {address}: Connection refused" in result.output
    assert len(result.output.strip().splitlines()) == 1


@contextlib.contextmanager
def answering(first_bytes: bytes | None) -> Iterator[int]:
    """A port where a server answers every connection with `first_bytes` (None: nothing)."""
    server = socket.create_server(("127.0.0.1", 0))
    taken: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:  # closed: the test is over
                return
            taken.append(connection)
            if first_bytes is not None:
                connection.sendall(first_bytes)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        for connection in taken:
            connection.close()


GRPC_SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # what a gRPC server (Ray's head) sends first


def test_an_address_is_checked_as_host_and_port(closed_port):
    with answering(GRPC_SETTINGS) as port:
        check_reachable(f"127.0.0.1:{port}")  # a gRPC server answers: no error
        check_reachable(f"ray://127.0.0.1:{port}")
    check_reachable("auto")  # a word Ray reads itself is left to it
    with pytest.raises(BackendError, match="Connection refused"):
        check_reachable(f"ray://127.0.0.1:{closed_port}")
    with pytest.raises(BackendError, match="70000 is not a port"):
        check_reachable("127.0.0.1:70000")


@pytest.mark.parametrize("answer", [b"SSH-2.0-OpenSSH_9.2\r\n", b"HTTP/1.1 400 Bad Request\r\n\r\n", None])
def test_an_address_where_something_else_answers_is_refused_before_ray_tries(answer, monkeypatch):
    # Ray would retry for minutes against a server that does not speak its protocol (gRPC)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda *a, **k: pytest.fail("Ray was asked to connect"))
    monkeypatch.setattr(backends, "CONNECT_TIMEOUT", 0.5)  # a server that says nothing: no answer
    with answering(answer) as port:
        address = f"127.0.0.1:{port}"
        result = CliRunner().invoke(main, ["simulate", "padan", "-n", "2", "--backend", "ray", "--address", address])
    assert result.exit_code == 2, result.output
    assert f"cannot start or reach a Ray cluster at {address}: what answers there does not speak" in result.output
