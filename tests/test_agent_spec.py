"""Agent specs on the command line: `play --opponents`, `run --agents`, `simulate --agents`."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from rulesengine.agent_spec import AgentSpecError, make_agents, parse_spec
from rulesengine.agents import CheatingMCTSAgent, GreedyAgent, ISMCTSAgent, MonteCarloAgent, RandomAgent
from rulesengine.cli import main
from tests.test_knowledge import TINY


def test_specs_make_agents_per_seat():
    agents = make_agents("ismcts:200:samples=4:c=0.5,greedy", 3, seed=2)
    assert [type(a) for a in agents] == [ISMCTSAgent, GreedyAgent, GreedyAgent]
    assert agents[0].iterations == 200 and agents[0].samples == 4 and agents[0].exploration == 0.5
    assert isinstance(make_agents("mc:30", 2, 0)[1], MonteCarloAgent)
    assert isinstance(make_agents("mcts-cheat:time=0.1", 2, 0)[0], CheatingMCTSAgent)
    assert make_agents("mcts-cheat:time=0.1", 2, 0)[0].seconds == 0.1
    assert isinstance(make_agents("random", 2, 0)[0], RandomAgent)


@pytest.mark.parametrize(
    "spec,message",
    [
        ("ismct", "did you mean 'ismcts'"),
        ("ismcts:abc", "takes a whole number"),
        ("ismcts:0", "must be above 0"),
        (
            "ismcts:99999999999999999999",
            "'iterations' of agent 'ismcts' takes at most 1,000,000,000",
        ),  # it searched for ever
        ("mc:1000000001", "takes at most"),
        ("ismcts:10:samples=2000000000", "'samples' of agent 'ismcts' takes at most"),
        ("ismcts:seconds=86401", "'seconds' of agent 'ismcts' takes at most 86,400"),
        ("greedy:5", "takes no settings"),
        ("ismcts:5:7", "'iterations' of agent 'ismcts' is given twice"),
        ("ismcts:seconds=1:time=2", "'seconds' of agent 'ismcts' is given twice"),
        ("mc:10:playouts=20", "'playouts' of agent 'mc' is given twice"),
        ("mc:depth=3", "no setting 'depth'"),
        ("ismcts:rollout=forever", "'round' or 'match'"),
        ("random,,greedy", "comma-separated"),
        ("ismcts:10:c=nan", "'c' of agent 'ismcts' takes a finite number, not 'nan'"),
        ("ismcts:10:c=inf", "takes a finite number, not 'inf'"),
        ("ismcts:seconds=inf", "takes a finite number"),
        ("mcts-cheat:time=-inf", "takes a finite number"),
        ("ismcts:\u0661", "takes a whole number"),  # a digit of another script
        ("mc:\uff11", "takes a whole number"),  # a full-width digit
        ("mc:1_0", "takes a whole number, not '1_0'"),  # as -o target=1_000 is refused
        ("ismcts:10:c=1_0", "takes a finite number, not '1_0'"),
        ("ismcts:10:c=\u0661.5", "takes a finite number"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agents(spec, 2, 0)


def test_too_many_agents_for_the_seats():
    with pytest.raises(AgentSpecError, match="3 agents given for 2 seat\\(s\\)"):
        make_agents("random,random,greedy", 2, 0)
    assert parse_spec(" ISMCTS : 10 ") == ("ismcts", {"iterations": 10})


def test_run_and_simulate_take_agents():
    runner = CliRunner()
    result = runner.invoke(main, ["run", TINY, "--agents", "ismcts:20,greedy", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "match over" in result.output
    result = runner.invoke(main, ["simulate", TINY, "-n", "4", "--agents", "mc:8,random", "--json"])
    assert result.exit_code == 0, result.output
    bad = runner.invoke(main, ["simulate", TINY, "-n", "4", "--agents", "ismct"])
    assert bad.exit_code == 2 and "did you mean 'ismcts'" in bad.output


def test_play_takes_opponents():
    runner = CliRunner()
    result = runner.invoke(main, ["play", TINY, "--opponents", "greedy", "--seat", "2"], input="1\n1\n")
    assert result.exit_code == 0, result.output
    assert "match over" in result.output
    bad = runner.invoke(main, ["play", TINY, "--opponents", "greedy,greedy"])
    assert bad.exit_code == 2 and "2 opponents given for 1 other seat(s)" in bad.output
