"""The playtest session without a server: what each seat is sent, refused actions, undo,
new matches, the replay, and the page's messages read by the protocol (plain Python: no
extra needed)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulesengine import replay
from rulesengine.resources import shipped_rulesets
from rulesengine.web import protocol
from rulesengine.web.session import Refused, Session
from tests.web_helpers import check_wire, make_session

SHORT = {  # small settings: a match of each shipped ruleset in a few dozen decisions
    "pan": (2, {"word": "P"}),
    "pan-reversed-spades": (2, {"word": "P"}),
    "padan": (2, {"target": 1}),
    "padan-original": (2, {"target": 1}),
    "padvinderspel": (3, {"target": 1}),
}


def test_every_shipped_game_has_short_settings():
    assert set(SHORT) == set(shipped_rulesets())


def _play_people(session: Session, chooser: random.Random, limit: int = 150) -> list[tuple[int, dict]]:
    """People in every seat move at random; returns each seat's message at every position."""
    sent = []
    for _ in range(limit):
        for seat in range(session.game.num_players):
            sent.append((seat, session.message((seat,))))
        if session.state.is_terminal():
            break
        mover = session.state.current_player()
        session.act((mover,), chooser.randrange(len(session.state.complete_actions())), session.version)
    return sent


@pytest.mark.parametrize("ruleset", sorted(SHORT))
def test_no_seat_is_sent_a_card_it_cannot_see(ruleset):
    players, options = SHORT[ruleset]
    session = make_session(ruleset, players, options, 7, people=range(players))
    chooser = random.Random(7)
    state = session.game.new_initial_state(seed=7, record_log=True)
    for seat, message in _play_people(session, chooser):
        while state.steps < message["decisions"]:  # a decision may take several ids
            state.apply_action(session.state.actions()[len(state.actions())])
        check_wire(message, state, seat)
        assert message["seed"] is None or session.state.is_terminal()  # the seed tells the deal


@given(seed=st.integers(0, 2**31 - 1), moves=st.integers(0, 40))
def test_a_seat_sees_its_own_hand_and_only_counts_of_the_others(seed, moves):
    session = make_session("padvinderspel", 3, {"target": 1}, seed, people=range(3))
    chooser = random.Random(seed)
    for _ in range(moves):
        if session.state.is_terminal():
            break
        choice = chooser.randrange(len(session.state.complete_actions()))
        session.act((session.state.current_player(),), choice, session.version)
    truth = session.state.card_locations()
    for seat in range(3):
        message = session.message((seat,))
        for zone in message["zones"]:
            if zone["name"] == f"hand[P{seat + 1}]":
                assert [c["name"] for c in zone["cards"]] == truth[zone["name"]]
            elif zone["name"].startswith("hand["):
                assert zone["cards"] is None and zone["count"] == len(truth[zone["name"]])
        moving = session.state.current_player() == seat and not session.state.is_terminal()
        assert bool(message["moves"]) == moving


def _unchanged(session: Session):
    return session.version, session.state.actions(), session.state.steps


def test_a_bad_or_stale_action_is_refused_and_changes_nothing():
    session = make_session("pan", 2, {"word": "P"}, 3, people=(0,), opponents="greedy")
    state = session.state
    me = state.current_player()
    choices = state.complete_actions()  # a page names a move by its place in this list
    legal, illegal = list(range(len(choices))), len(choices)
    before = _unchanged(session)
    other = 1 - me
    attempts = [
        ((me,), illegal, session.version, "not a legal move"),
        ((me,), legal[0], session.version - 1, "earlier position"),
        ((me,), True, session.version, "not a legal move"),
        ((me,), "1", session.version, "not a legal move"),
        ((other,), legal[0], session.version, "turn"),
    ]
    for seats, action, version, said in attempts:
        with pytest.raises(Refused, match=said):
            session.act(seats, action, version)
        assert _unchanged(session) == before
    session.act((me,), legal[0], session.version)
    assert session.state.actions() == list(choices[0][3])  # the ids of the first action, applied


def test_undo_takes_back_the_persons_last_move_and_the_bots_after_it():
    session = make_session("padvinderspel", 3, {"target": 1}, 11, people=(0,), opponents="greedy")
    with pytest.raises(Refused, match="no move of yours"):
        session.undo((0,))
    while session.state.current_player() != 0:
        session.bot_act(session.bot_to_move().choose(session.state), session.version)
    before = session.message((0,))
    session.act((0,), len(session.state.complete_actions()) - 1, session.version)
    while session.bot_to_move() is not None:
        session.bot_act(session.bot_to_move().choose(session.state), session.version)
    assert session.message((0,))["can_undo"]
    session.undo((0,))
    after = session.message((0,))
    assert after["version"] > before["version"]
    assert {k: v for k, v in after.items() if k != "version"} == {k: v for k, v in before.items() if k != "version"}


def test_undo_and_a_running_match_are_not_for_several_people():
    session = make_session("pan", 3, {"word": "P"}, 2, people=(0, 1))
    with pytest.raises(Refused, match="one person"):
        session.undo((0,))
    with pytest.raises(Refused, match="over"):
        session.new_match((0,), 5)
    assert session.message((0,))["seed"] is None  # the seed would tell each hand


def test_several_people_start_a_new_match_from_a_fresh_seed_only():
    # A seed chosen by one person would tell that person every other hand of the new match.
    players, options = SHORT["padan"]
    session = make_session("padan", players, options, 3, people=tuple(range(players)))
    _play_people(session, random.Random(2), limit=2000)
    assert session.state.is_terminal()
    assert session.message((0,))["can_new_match"] and not session.message((0,))["can_choose_seed"]
    with pytest.raises(Refused, match="fresh seed"):
        session.new_match((0,), 777)
    assert session.matches == 1
    session.new_match((0,), None)
    assert session.matches == 2 and session.message((0,))["seed"] is None  # not shown until the end
    alone = make_session("padan", players, options, 3, people=(0,))
    assert alone.message((0,))["can_choose_seed"]


def test_a_new_match_starts_from_the_seed_asked_for_or_a_fresh_one():
    session = make_session("padan", 2, {"target": 1}, 1, people=(1,))
    session.new_match((1,), 42)
    assert session.seed == 42 and session.matches == 2 and session.state.actions() == []
    fresh = session.game.new_initial_state(seed=42)
    assert session.state.card_locations() == fresh.card_locations()
    # any seed a browser's number holds exactly, as `run` and `replay` take them when small
    session.new_match((1,), -(2**53 - 1))
    assert session.seed == -(2**53 - 1) and session.state.seed == session.seed
    for bad in (2**53, -(2**53), "7", 1.5, True):
        with pytest.raises(Refused, match="from -9007199254740991 to 9007199254740991"):
            session.new_match((1,), bad)
    session.new_match((1,), None)
    assert 0 <= session.seed <= 2**53 - 1 and session.matches == 4


def test_fresh_seeds_are_too_many_to_search_for_the_deal():
    """The seed tells every hand: a fresh one is drawn from all that a browser holds exactly
    (2**53), not from 2**31, which one core searched in hours for the seed that deals a hand seen."""
    from rulesengine.cli import _fresh_seed

    session = make_session("padan", 2, {"target": 1}, 1, people=(0, 1))
    seeds = [_fresh_seed() for _ in range(20)]
    for _ in range(20):
        session.state.game_over = True  # with several people, a new match only after the last
        session.new_match((0,), None)
        seeds.append(session.seed)
    assert all(0 <= seed <= 2**53 - 1 for seed in seeds) and max(seeds) >= 2**40  # all below: chance 2**-520


@pytest.mark.parametrize("ruleset", ["padan-original", "padvinderspel"])
def test_the_replay_of_a_match_verifies(ruleset):
    players, options = SHORT[ruleset]
    session = make_session(ruleset, players, options, 9, people=(0,), opponents="greedy")
    chooser = random.Random(1)
    while not session.state.is_terminal():
        if session.bot_to_move() is not None:
            session.bot_act(session.bot_to_move().choose(session.state), session.version)
        else:
            session.act((0,), chooser.randrange(len(session.state.complete_actions())), session.version)
    data = session.replay()
    assert data["ruleset"] == ruleset and data["seed"] == 9
    assert replay.verify(json.loads(json.dumps(data))).returns() == session.state.returns()


def test_links_carry_unguessable_tokens():
    session = make_session("pan", 3, {}, 0, people=(0, 1, 2))
    tokens = [path.rsplit("/", 1)[1] for path, _seats in session.links()]
    assert len(set(tokens)) == 3 and all(len(token) >= 24 for token in tokens)
    for token, seat in zip(tokens, range(3)):
        assert session.seats_of(token) == (seat,)
    assert session.seats_of(tokens[0][:-1]) is None and session.seats_of("") is None
    hot = make_session("pan", 3, {}, 0, people=(0, 2), hot_seat=True)
    assert [seats for _path, seats in hot.links()] == [(0, 2)]


def test_hot_seat_hands_the_screen_over_before_showing_a_hand():
    session = make_session("padvinderspel", 2, {"target": 1}, 4, people=(0, 1), hot_seat=True)
    seats = (0, 1)
    first = session.message(seats)
    assert first["type"] == "handover" and "zones" not in first
    mover = first["seat"]
    with pytest.raises(Refused, match="not on the screen"):
        session.act(seats, 0, session.version)
    session.reveal(seats)
    shown = session.message(seats)
    assert shown["type"] == "state" and shown["seat"] == mover
    session.act(seats, 0, session.version)
    assert session.message(seats) == {**session.message(seats), "type": "handover", "seat": 1 - mover}


def test_reveal_is_refused_unless_a_hot_seat_screen_waits_for_it():
    several = make_session("pan", 2, {"word": "P"}, 3, people=(0, 1))
    with pytest.raises(Refused, match="hot seat"):
        several.reveal((0,))
    session = make_session("padan-original", 2, {"target": 1}, 4, people=(0, 1), hot_seat=True)
    seats = (0, 1)
    session.reveal(seats)
    version = session.version
    with pytest.raises(Refused, match="already"):
        session.reveal(seats)  # the screen shows that person's cards: nothing to hand over
    while not session.state.is_terminal():
        if session.message(seats)["type"] == "handover":
            session.reveal(seats)
        session.act(seats, 0, session.version)
    with pytest.raises(Refused, match="over"):
        session.reveal(seats)
    assert session.version > version


def test_people_must_sit_in_seats_of_the_game():
    with pytest.raises(ValueError):
        make_session("pan", 2, {}, 0, people=(2,))


@given(
    st.one_of(
        st.text(max_size=300),
        st.binary(max_size=300),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=10)),
            lambda inner: st.one_of(
                st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
            ),
            max_leaves=12,
        ).map(json.dumps),
    )
)
def test_any_page_message_is_read_or_refused_with_a_reason(text):
    try:
        message = protocol.read(text)
    except protocol.BadMessage as problem:
        assert str(problem)
    else:
        assert message["type"] in ("act", "undo", "new", "reveal", "refresh")


@pytest.mark.parametrize(
    "text, said",
    [
        ("x" * 5000, "at most"),
        ("[1]", "JSON object"),
        ('{"type": "fly"}', "type"),
        ('{"type": "act", "action": 1}', "version"),
        ('{"type": "act", "action": "1", "version": 1}', "whole number"),
        ('{"type": "act", "action": true, "version": 1}', "whole number"),
        ('{"type": "undo", "extra": 1}', "no field"),
        ("[" * 1500 + "]" * 500, "JSON"),
        ("\N{GRINNING FACE}" * 600, "at most"),  # 600 characters, 2,400 bytes
        ("\N{GRINNING FACE}".encode() * 600, "at most"),
    ],
)
def test_malformed_messages_are_named(text, said):
    with pytest.raises(protocol.BadMessage, match=said):
        protocol.read(text)


def test_a_message_is_measured_in_bytes_up_to_the_limit():
    message = '{"type": "refresh"}'
    padding = " " * (protocol.MAX_MESSAGE_BYTES - len(message))
    assert protocol.read(message + padding)["type"] == "refresh"  # exactly the limit
    accented = message + padding[:-1] + "\N{LATIN SMALL LETTER E WITH ACUTE}"  # as many characters, a byte more
    with pytest.raises(protocol.BadMessage, match="at most"):
        protocol.read(accented)


def test_a_field_name_that_is_no_text_is_named_in_an_error_that_can_be_sent():
    with pytest.raises(protocol.BadMessage) as problem:
        protocol.read('{"type": "act", "\\ud800": 1}')  # a lone surrogate, escaped in the JSON
    said = str(problem.value)
    assert "no field" in said and "\\ud800" in said
    said.encode("utf-8")  # a text the wire can carry


@pytest.mark.parametrize("ruleset", sorted(SHORT))
def test_cards_are_drawn_from_the_deck_definition(ruleset):
    from rulesengine import api
    from rulesengine.web.views import card_faces

    game = api.make_game(ruleset)
    faces = card_faces(game.program)
    assert faces == card_faces(api.make_game(ruleset, optimize=False).program)  # the reference mode too
    suits = {suit.name: suit.attributes for suit in game.ruleset.suits}
    for deck in game.ruleset.decks:
        for suit in deck.suits:
            for rank in deck.ranks:
                matching = [face for face in faces.values() if face["suit"] == suit and face["rank"] == rank]
                assert len(matching) == 1
                assert matching[0]["symbol"] == suits[suit].get("symbol")
                if "colour" in suits[suit]:
                    assert matching[0]["colour"] == suits[suit]["colour"]


def test_finished_matches_are_recorded_in_the_folder_asked_for(tmp_path):
    session = make_session("padvinderspel", 2, {"target": 1}, 6, people=(0,), opponents="greedy", record=tmp_path)
    for match in range(2):
        while not session.state.is_terminal():
            if session.bot_to_move() is not None:
                session.bot_act(session.bot_to_move().choose(session.state), session.version)
            else:
                session.act((0,), 0, session.version)
        if match == 0:
            session.new_match((0,), 7)
    assert [path.name for path in session.recorded] == [
        "padvinderspel-seed6-match1.json",
        "padvinderspel-seed7-match2.json",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in session.recorded]  # no temporary left
    data = replay.read(session.recorded[1])
    assert replay.verify(data, session.recorded[1]).returns() == session.state.returns()


def test_a_replay_that_cannot_be_written_is_said_and_the_match_goes_on(tmp_path, caplog):
    gone = tmp_path / "gone"
    gone.mkdir()
    session = make_session("padan-original", 2, {"target": 1}, 2, people=(0, 1), record=gone)
    gone.rmdir()
    while not session.state.is_terminal():
        session.act((session.state.current_player(),), 0, session.version)
    message = session.message((0,))
    # the pages (other computers' too) are told what failed, the server's terminal why
    assert (
        message["result"]
        and message["notice"] == "the replay of match 1 was not written (the server's terminal says why)"
    )
    assert str(tmp_path) not in json.dumps(message)
    assert "cannot write" in caplog.text and str(gone) in caplog.text
    # the notice is of that match's replay: gone with the next match, and with a replay written
    gone.mkdir()
    session.new_match((0,), None)
    assert session.message((0,))["notice"] is None
    while not session.state.is_terminal():
        session.act((session.state.current_player(),), 0, session.version)
    assert session.message((0,))["notice"] is None and len(session.recorded) == 1


def test_a_rule_file_gone_before_the_match_ends_is_a_notice(tmp_path):
    from tests.test_pipeline import MINIMAL

    rules = tmp_path / "g.yaml"
    rules.write_text(MINIMAL)
    session = make_session(str(rules), 2, {}, 4, people=(0, 1), record=tmp_path)
    rules.unlink()  # moved away while the match is played
    while not session.state.is_terminal():
        session.act((session.state.current_player(),), 0, session.version)
    message = session.message((0,))
    assert message["result"] and "was not written" in message["notice"]
    assert session.recorded == []
