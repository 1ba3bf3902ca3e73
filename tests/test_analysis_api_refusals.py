"""`rulesengine.analysis.analyse` refuses a setting the way `simulate` does: before any match
is played, with an OptionError (the error `make_game` raises for a bad setting) that names the
parameter and what it takes; and the agents, roles and standing are checked by one function,
in the command's words when asked for them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import rulesengine
from rulesengine import analysis
from rulesengine.analysis import SettingError, analyse, make_plan, plan_settings
from rulesengine.cli import main
from rulesengine.diagnostics import EngineError, OptionError

SEEDS = 2**63 - 1  # the largest seed `run --seed` takes


@pytest.fixture(scope="module")
def game() -> rulesengine.Game:
    return rulesengine.make_game("padan", options={"target": 5})


@pytest.fixture
def nothing_played(monkeypatch: pytest.MonkeyPatch):
    """Fails the test if a match is played (the backends are never reached)."""

    def run(*arguments, **settings):
        raise AssertionError("a match was played")

    monkeypatch.setattr(analysis, "run", run)


BAD = [
    # (the settings, the parameter the message names first, words it says)
    (
        {"standing": "first_drafter"},
        "standing",
        "not a per-player number variable of Padan (choose from: tricks, score)",
    ),
    ({"standing": "bogus"}, "standing", "not a per-player number variable"),
    ({"standing": "-bogus"}, "standing", "not a per-player number variable"),
    ({"standing": "--score"}, "standing", "not a per-player number variable"),
    ({"standing": "-"}, "standing", "not a per-player number variable"),
    ({"standing": ""}, "standing", "not a per-player number variable"),
    ({"standing": 3}, "standing", "not a per-player number variable"),
    ({"standing": ("score",)}, "standing", "not a per-player number variable"),
    ({"roles": ("bogus",)}, "roles", "'bogus' is not a variable of type player (one for the whole game) of Padan"),
    ({"roles": ("first_drafter", "score")}, "roles", "'score' is not a variable of type player"),
    ({"roles": ("first_drafter", 3)}, "roles", "3 is not a variable of type player"),
    ({"roles": (["first_drafter"],)}, "roles", "is not a variable of type player"),
    ({"roles": "first_drafter"}, "roles", "not the text 'first_drafter'"),
    ({"roles": 5}, "roles", "a list or tuple of variable names"),
    ({"agents": ()}, "agents", "at least one agent spec"),
    ({"agents": []}, "agents", "at least one agent spec"),
    ({"agents": None}, "agents", "a list or tuple of agent specs"),
    ({"agents": "greedy"}, "agents", "not the text 'greedy'; for one agent: ('greedy',)"),
    ({"agents": ("bogus",)}, "agents", "unknown agent 'bogus'"),
    ({"agents": ("ismcts:0",)}, "agents", "must be above 0"),
    ({"agents": ("",)}, "agents", "each is one agent spec"),
    ({"agents": (" ",)}, "agents", "each is one agent spec"),
    ({"agents": ("random,greedy",)}, "agents", "each is one agent spec"),
    ({"agents": ("random", 7)}, "agents", "each is one agent spec"),
    ({"agents": ("random",) * 3}, "agents", "3 agents given for 2 seat(s)"),
    ({"agents": ("random",) * 10**6}, "agents", "1000000 agents given for 2 seat(s)"),
    ({"backend": "rya"}, "backend", "backend is 'local' or 'ray', not 'rya'"),
    ({"backend": None}, "backend", "'local' or 'ray'"),
    ({"backend": "LOCAL"}, "backend", "'local' or 'ray'"),
    ({"address": "localhost:6379"}, "address", "give it with backend='ray'"),
    ({"address": 6379, "backend": "ray"}, "address", "HOST:PORT"),
    ({"address": " ", "backend": "ray"}, "address", "HOST:PORT"),
    ({"progress": 5}, "progress", "None or a function"),
    ({"progress": "bar"}, "progress", "None or a function"),
    ({"probe": "no"}, "probe", "True or False"),
    ({"probe": None}, "probe", "True or False"),
    ({"probe": 0}, "probe", "True or False"),
    ({"games": 0}, "games", "at least 1"),
    ({"games": -3}, "games", "at least 1"),
    ({"games": None}, "games", "at least 1"),
    ({"games": True}, "games", "at least 1"),
    ({"games": 2.0}, "games", "at least 1"),
    ({"games": "2"}, "games", "at least 1"),
    ({"games": 2 * SEEDS + 2}, "games", "at most 18,446,744,073,709,551,615 matches, as many as there are seeds"),
    ({"games": 10**5000}, "games", "a whole number of about 5000 digits"),  # too long for Python to write
    ({"seed": None}, "seed", "whole number from"),
    ({"seed": 1.0}, "seed", "whole number from"),
    ({"seed": SEEDS + 1}, "seed", "whole number from"),
    ({"seed": -SEEDS - 1}, "seed", "whole number from"),
    ({"seed": SEEDS}, "seed", f"seed {SEEDS} with games=2: the seeds of the matches would run to {SEEDS + 1}"),
    ({"workers": 0}, "workers", "whole number from 1 to 1024"),
    ({"workers": 1025}, "workers", "whole number from 1 to 1024"),
    ({"workers": None}, "workers", "whole number from 1 to 1024"),
    ({"workers": "AUTO"}, "workers", "whole number from 1 to 1024 or 'auto'"),
    ({"workers": 2.0}, "workers", "whole number from 1 to 1024"),
    ({"workers": True}, "workers", "whole number from 1 to 1024"),
    ({"game": "padan"}, "game", "made by rulesengine.make_game, not 'padan'"),
    ({"game": None}, "game", "made by rulesengine.make_game"),
]


@pytest.mark.parametrize(("settings", "parameter", "words"), BAD, ids=[f"{p}-{i}" for i, (_, p, _) in enumerate(BAD)])
def test_a_bad_setting_is_refused_before_anything_is_played(game, nothing_played, settings, parameter, words):
    progressed: list[int] = []
    arguments = {"game": game, "games": 2, "probe": False, "progress": progressed.append, **settings}
    with pytest.raises(OptionError) as refused:
        analyse(**arguments)
    message = str(refused.value)
    assert words in message, message
    assert message.startswith(parameter), message  # the parameter is named first
    assert isinstance(refused.value, EngineError)  # as analyse refused its numbers before
    assert type(refused.value) is SettingError and len(message) < 400
    assert progressed == []


@pytest.mark.parametrize(
    "settings",
    [
        {"standing": "first_drafter"},
        {"roles": "first_drafter"},
        {"agents": "greedy"},
        {"agents": ()},
        {"games": 0},
        {"seed": SEEDS},
        {"game": "padan"},
    ],
)
def test_make_plan_refuses_alike(game, settings):
    arguments = {"game": game, "games": 2, **settings}
    with pytest.raises(SettingError):
        make_plan(**arguments)


def test_the_refusals_reported_first_are_refused(game, nothing_played):
    """The settings found to go wrong: each was silently wrong or failed far from its cause."""
    with pytest.raises(OptionError, match=r"^standing: 'first_drafter' is not a per-player number variable"):
        analyse(game, 5, standing="first_drafter")
    with pytest.raises(OptionError, match=r"^agents is a list or tuple of at least one agent spec"):
        analyse(game, 2, agents=())
    with pytest.raises(OptionError, match=r"^roles is None \(every role\) or a list or tuple"):
        analyse(game, 2, roles="first_drafter")
    with pytest.raises(OptionError, match=r"^backend is 'local' or 'ray', not 'rya'$"):
        analyse(game, 2, backend="rya")
    with pytest.raises(OptionError, match=r"^progress is None or a function"):
        analyse(game, 2, progress=5)


def test_valid_settings_still_play(game):
    progressed: list[int] = []
    data = analyse(
        game,
        3,
        seed=SEEDS - 2,  # the last matches that can be replayed
        agents=["random", "greedy"],
        roles=("first_drafter", "first_drafter"),
        standing="-score",
        progress=progressed.append,
        probe=False,
    )
    assert data["games"] == 3 and not data["partial"] and progressed[-1] == 3
    assert data["agents"] == ["random", "greedy"] and data["backend"] == "local"
    assert [r["role"] for r in data["roles"]] == ["first mover", "first_drafter"]  # named once
    assert data["standing"]["source"] == "variable score (lower is better)"
    every = analyse(game, 1, roles=None, standing="tricks", probe=False)
    assert {r["role"] for r in every["roles"]} == {"first mover", "first_drafter", "first_leader", "trick_winner"}
    assert [r["role"] for r in analyse(game, 1, roles=[], probe=False)["roles"]] == ["first mover"]
    assert analyse(game, 2, workers="auto", probe=False)["games"] == 2  # as -j auto: one process per core


def test_whole_numbers_of_numpy_are_whole_numbers(game):
    numpy = pytest.importorskip("numpy")
    data = analyse(game, numpy.int64(1), seed=numpy.int32(4), workers=numpy.int8(1), probe=False)
    assert data["games"] == 1 and data["seed"] == 4


@pytest.mark.parametrize(
    ("arguments", "agents", "roles", "standing"),
    [
        (["--role", "bogus"], "random", ("bogus",), None),
        (["--role", "first_drafter", "--role", "tricks"], "random", ("first_drafter", "tricks"), None),
        (["--standing", "first_drafter"], "random", None, "first_drafter"),
        (["--standing", "-bogus"], "random", None, "-bogus"),
        (["--agents", "random,random,random"], "random,random,random", None, None),
        (["--agents", "random,"], "random,", None, None),
        (["--agents", "bogus"], "bogus", None, None),
        (["--agents", "random, ismcts:x"], "random, ismcts:x", None, None),
    ],
)
def test_the_shared_check_speaks_as_the_command_does(game, arguments, agents, roles, standing):
    """plan_settings(command_line=True), as commands.py may call it, refuses what `simulate`
    refuses, with the very message the command prints."""
    with pytest.raises(SettingError) as refused:
        plan_settings(game, agents.split(","), roles, standing, command_line=True)
    printed = CliRunner().invoke(main, ["simulate", "padan", "-o", "target=5", "-n", "1", *arguments])
    assert printed.exit_code == 2
    assert printed.output.strip() == f"Error: {refused.value}"


def test_the_shared_check_gives_what_the_command_plays(game):
    assert plan_settings(game, " random, greedy".split(","), ("first_leader",), "-tricks", command_line=True) == {
        "agents": ("random", "greedy"),
        "roles": ("first_leader",),
        "standing": "-tricks",
    }
    assert plan_settings(game, ("random",), None, None) == {"agents": ("random",), "roles": None, "standing": None}
