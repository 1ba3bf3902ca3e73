"""What each player knows: kept by the engine as a match runs, never rebuilt by replay.

Three things are kept, each updated by the card-moving primitives of `State` at a cost
proportional to the cards a step moves:

- `known[p * C + c]`: the zone where player `p` knows card `c` to be, or -1 (unseen). A
  player learns where a card is when it sees the card in a zone it may look into, sees it
  leave such a zone (it follows the card into the zone it goes to), or is shown it. It
  keeps following a known card between zones it cannot look into only when the whole zone
  moves (a packet picked up); after a partial move out of a hidden zone it cannot tell
  which card left, so it forgets every card it knew there. A shuffle of a zone it cannot
  look into makes it forget the cards in it.
- `ident[p * C + c]`: the step at which `p` last identified `c` (saw it, was shown it, saw
  it named in a move or a variable), -1 if never since the last shuffle of `c`.
- `origin[c]`: the class of cards `c` is exchangeable with for a player who has not seen
  them since: a shuffle puts its cards in a new class, together with every card that was in
  the class of one of them (a class is never split: cards left outside the shuffled zone
  stay exchangeable with those in it), and a card never shuffled is a class of its own.

Next to them the state keeps a trail: one record per step (the zones the step changed,
the variables, the public flow, the cards shown, the last move; parts equal to the previous
record's are shared, so a long match adds few objects for the garbage collector to walk).
A player's observations
and information-state key are projections of the trail, computed lazily and cached, so
asking costs only the steps since the last question.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from . import ir
from .diagnostics import EngineError
from .teams import may_see


class Sight:
    """Who may look into which zone, per game (precomputed tables for the hot path)."""

    def __init__(self, program: Any):
        n = program.num_players
        self.num_players = n
        self.num_cards = program.num_cards
        zones = range(len(program.zone_names))
        self.sees = [
            [may_see(v, program.zone_owner[z], p, program.teams) for z, v in enumerate(program.zone_visibility)]
            for p in range(n)
        ]
        # players who see zone a or zone b (they follow a card moving between them), and the others
        self.either = [[tuple(p for p in range(n) if self.sees[p][a] or self.sees[p][b]) for b in zones] for a in zones]
        self.blind = [
            [tuple(p for p in range(n) if not (self.sees[p][a] or self.sees[p][b])) for b in zones] for a in zones
        ]
        self.card_slots = tuple(
            program.variable_offsets[name] + k
            for name, per_player, type_ in program.variable_layout
            if type_ == ir.CARD
            for k in range(n if per_player else 1)
        )
        # how a raw variable value is shown (cards and suits below 0 show as None)
        self.named: dict[int, tuple[int, ...]] = {}  # action -> the cards it names to everyone
        self.names: dict[int, tuple] = {}  # action -> (its name to the others if hidden, else None; its name)
        types = [type_ for _name, per_player, type_ in program.variable_layout for _ in range(n if per_player else 1)]
        self.shown_slots = tuple(i for i, t in enumerate(types) if t in (ir.CARD, ir.SUIT))
        # what every match starts from: each player knows the rule file's initial layout
        count = program.num_cards
        self.known = [-1] * (n * count)
        self.ident = [-1] * (n * count)
        for zone, contents in enumerate(program.initial_zones):
            for p in range(n):
                for card in contents:
                    self.known[p * count + card] = zone
                    if self.sees[p][zone]:
                        self.ident[p * count + card] = 0
        self.origin = [-1 - card for card in range(count)]  # never shuffled: a class of its own


def initial(state: Any) -> None:
    """Knowledge at the start: every player knows the rule file's initial layout."""
    sight = state.game.sight
    state.known = sight.known[:]
    state.ident = sight.ident[:]
    state.origin = sight.origin[:]
    state._touched = set(range(len(state.zones)))
    state.trail = None
    state._checkpoint = None
    state._shuffled = False


def at_position(state: Any) -> None:
    """Knowledge at a position set up from outside (no past to learn from): each player knows
    the cards in the zones it may look into; every other card is unseen, all of them
    exchangeable (as if just dealt from one shuffle). The trail and the checkpoint a resample
    replays from start here."""
    initial(state)  # the trail and the checkpoint start again
    sight = state.game.sight
    count, players = sight.num_cards, sight.num_players
    known, ident = [-1] * (players * count), [-1] * (players * count)
    for zone, cards in enumerate(state.zones):
        for p in range(players):
            if sight.sees[p][zone]:
                for card in cards:
                    known[p * count + card] = zone
                    ident[p * count + card] = state.steps
    state.known, state.ident = known, ident
    state.origin = [state.chance_count] * count  # one class (the label a shuffle now would take)
    state._shuffled = True  # the checkpoint a resample replays from is the position
    end_step(state)


def moved(state: Any, cards: Any, source: int, destination: int) -> None:
    """`cards` have just moved from `source` to `destination`."""
    touched = state._touched
    touched.add(source)
    touched.add(destination)
    sight = state.game.sight
    known, ident = state.known, state.ident
    count, stamp = sight.num_cards, state.steps
    for p in sight.either[source][destination]:
        base = p * count
        for card in cards:
            known[base + card] = destination
            ident[base + card] = stamp
    blind = sight.blind[source][destination]
    if blind:
        left = state.zones[source]
        for p in blind:
            base = p * count
            if not left:  # the whole zone moved: the cards it knew there are followed
                for card in cards:
                    if known[base + card] >= 0:
                        known[base + card] = destination
                continue
            # Some cards left: it cannot tell which, so it forgets every card it knew there.
            for card in cards:
                known[base + card] = -1
            if source in known[base : base + count]:  # (a scan in C first: mostly it knew none)
                for card in left:
                    if known[base + card] == source:
                        known[base + card] = -1


# `ident` of a card a shuffle of the current step hid from a player: -1 (never identified since
# its last shuffle) once the step is closed, told apart until then so that the cards the
# step's move named before the shuffle are not taken as identified after it
LOST_IN_SHUFFLE = -2


def shuffled(state: Any, zone: int) -> None:
    """Zone `zone` is being shuffled: who cannot look into it loses track of its cards."""
    state._touched.add(zone)
    state._shuffled = True
    sight = state.game.sight
    count = sight.num_cards
    label = state.chance_count  # one class per shuffle
    contents = state.zones[zone]
    origin = state.origin
    # The shuffled cards join one class with every card that was exchangeable with one of them:
    # a card of the same class left outside the zone (in a hand no one else sees) is no easier
    # to tell from them after the shuffle than before, so the class is not split.
    joined = {origin[card] for card in contents}
    for card, was in enumerate(origin):
        if was in joined:
            origin[card] = label
    for p in range(sight.num_players):
        if not sight.sees[p][zone]:
            base = p * count
            for card in contents:
                state.known[base + card] = -1
                state.ident[base + card] = LOST_IN_SHUFFLE


def chosen(state: Any) -> None:
    """A random choice was drawn: resampling replays from after it (its outcome is a place in
    a list, which relabelling cards would not carry over)."""
    state._shuffled = True


def revealed(state: Any, player: int, cards: Any) -> None:
    base = player * state.game.sight.num_cards
    for card in cards:
        if card >= 0:
            state.known[base + card] = state.where[card]
            state.ident[base + card] = state.steps


def end_step(state: Any, action: int | None = None) -> None:
    """Close a step: note the cards named in public and append the step's record to the trail.

    `action` is the player's action the step applied (None for a chance outcome or the start).
    This runs after every step of every match, so it is written for speed.
    """
    sight = state.game.sight
    if action is None:
        named: tuple[int, ...] = ()
    else:
        named = sight.named.get(action)
        if named is None:
            named = sight.named[action] = _named(state.game, action)
    if sight.card_slots:
        values = state.vars
        named = (*named, *(v for v in (values[i] for i in sight.card_slots) if isinstance(v, int) and v >= 0))
    if named:
        count, stamp, ident = sight.num_cards, state.steps, state.ident
        for card in named:
            for p in range(sight.num_players):
                # a card the move named and a shuffle of this step then hid was identified
                # before that shuffle, not since: its new place is not known
                if ident[p * count + card] != LOST_IN_SHUFFLE:
                    ident[p * count + card] = stamp
    touched = state._touched
    if touched:
        zones = state.zones
        flat: list[Any] = []
        for z in touched:
            flat.append(z)
            flat.append(tuple(zones[z]))
        changes: tuple[Any, ...] = tuple(flat)
        touched.clear()
    else:
        changes = ()
    state.trail = (state.trail, _with_commits(state, _record(state, changes)))
    if state._shuffled:
        state._shuffled = False
        idents = state.ident
        if LOST_IN_SHUFFLE in idents:
            for index, step in enumerate(idents):
                if step == LOST_IN_SHUFFLE:
                    idents[index] = -1
        checkpoint = state.clone()
        checkpoint._checkpoint = None
        state._checkpoint = checkpoint


def _record(state: Any, changes: tuple[Any, ...]) -> tuple[Any, ...]:
    """One step's record: the zones it changed (zone, cards, zone, cards, ...), the variables,
    the public position, what was shown, the mover and the last action (None: none yet).

    A match appends one at every step, so a record is made of as few new objects as it can be:
    parts equal to the previous record's are that record's own (a tuple made and dropped at
    once costs the garbage collector nothing; one kept costs it a walk at every collection)."""
    values = tuple(state.vars)
    active = tuple(state.active)
    previous = state.trail[1] if state.trail is not None else None
    if previous is not None and type(previous[0]) is not tuple:
        previous = None  # a pick, commit or base record: no parts of the same shape to share
    if previous is not None:
        if previous[1] == values:
            values = previous[1]
        if previous[2][4] == active:
            active = previous[2][4]
    public = (state.round_number, state.phase, state.current_player(), state.direction, active, state.game_over)
    if previous is not None and previous[2] == public:
        public = previous[2]
    shown = tuple(map(tuple, state.shown)) if state.shown_any else None
    return (changes, values, public, shown, state.mover, state.last_action)


def _with_commits(state: Any, record: tuple[Any, ...]) -> tuple[Any, ...]:
    """A hidden choice of a simultaneous phase wraps the record: each player sees only its own."""
    if not state._commits:
        return record
    seen = tuple(state.commits_seen(p) for p in range(state.num_players))
    return ("commit", state._commits, seen, record)


def picked(state: Any) -> None:
    """Close a step of a choice made in steps: a record only its maker observes (the picks so
    far), holding the unchanged public record for its observation; the others observe nothing,
    so the number of steps a choice took tells them nothing."""
    inner = _with_commits(state, _record(state, ()))
    state.trail = (state.trail, ("pick", state.current, state._pending, tuple(state.pending_names()), inner))


def _named(game: Any, action: int) -> tuple[int, ...]:
    """The cards a player's action names to everyone (none for a hidden move)."""
    move, values = game.decode(action)
    if move.hidden:
        return ()
    named: list[int] = []
    for param, value in zip(move.params, values):
        if param.kind == "card" and value is not None and value >= 0:
            named.append(value)
        elif param.kind in ("set", "subset"):
            named.extend(value)
    return tuple(named)


# ---- a player's view of the trail ---------------------------------------------------------


def _records(state: Any, stop: Any) -> tuple[list, Any]:
    """The records after the trail cell `stop` (oldest first), and the cell the walk ended at."""
    records: list[Any] = []
    cell = state.trail
    while cell is not None and cell is not stop:
        cell, record = cell
        if record[0] == "base":
            return records[::-1], record
        records.append(record)
    return records[::-1], cell


def project(state: Any, player: int, view: list, record: tuple) -> Any:
    """What `player` observes at one step that differs from `view` (updated in place); None
    for a step of another player's choice made in steps (see `picked`)."""
    if record[0] == "pick":
        return ("pick", record[2]) if record[1] == player else None
    if record[0] == "commit":
        return (*project(state, player, view, record[3]), ("chosen", repr(record[2][player])))
    changes, values, public, shown, mover, action = record
    sees = state.game.sight.sees[player]
    diff = []
    pairs = iter(changes)
    for zone, contents in zip(pairs, pairs):
        value = contents if sees[zone] else len(contents)
        if view[zone] != value:
            view[zone] = value
            diff.append((zone, value))
    diff.sort()
    sight = state.game.sight
    last = None
    if action is not None:
        names = sight.names.get(action)
        if names is None:
            move = state.game.move_of(action)
            names = sight.names[action] = (move.name if move.hidden else None, state.game.key_name(action))
        last = (mover, names[1] if names[0] is None or mover == player else names[0])
    if sight.shown_slots:  # cards and suits below 0 are shown as None
        values = list(values)
        for i in sight.shown_slots:
            if not (isinstance(values[i], int) and values[i] >= 0):
                values[i] = None
        values = tuple(values)
    return tuple(diff), values, public, shown[player] if shown else (), last


def _tracked(state: Any) -> None:
    if not state._track:
        raise EngineError("this state keeps no knowledge of the players (made with track=False)")


def _start_of(state: Any, player: int) -> tuple[Any, str, Sequence[Any]]:
    """(cell, key, view) to continue from: the player's kept one if on this trail, else the start."""
    kept = state._seen.get(player)
    if kept is not None:
        return kept
    return None, "", [None] * len(state.zones)


def key(state: Any, player: int) -> str:
    """The information-state key of `player`: a SHA-256 chain over its projected steps."""
    _tracked(state)
    cell, digest, view = _start_of(state, player)
    records, end = _records(state, cell)
    if end is not cell:
        if not (isinstance(end, tuple) and end[0] == "base"):
            digest, view = "", [None] * len(state.zones)  # the kept one is not on this trail
        else:
            digest, view = _from_base(state, end, player)
    elif not records:
        return digest
    view = list(view)
    for record in records:
        projection = project(state, player, view, record)
        if projection is None:
            continue
        digest = hashlib.sha256(f"{digest}|{projection!r}".encode()).hexdigest()
    state._seen = {**state._seen, player: (state.trail, digest, tuple(view))}
    return digest


def _from_base(state: Any, base: tuple, player: int) -> tuple[str, tuple]:
    """Where the key of `player` starts on a resampled state's trail.

    The resampling player starts from its own key. Another player's past is not known to
    it, so that player's key starts from the resampling player's key and the cards it holds
    in the sample at that point: a key telling apart what it sees in the sampled world.
    """
    _tag, owner, digest, view, _observations, zones = base
    if player == owner:
        return digest, view
    sees = state.game.sight.sees[player]
    view = tuple(cards if sees[z] else len(cards) for z, cards in enumerate(zones))
    return hashlib.sha256(f"{digest}|P{player}|{view!r}".encode()).hexdigest(), view


def observation_chain(state: Any, player: int) -> tuple | None:
    """The observations of `player` so far as a linked list (earlier, observation), newest
    first; kept like the key, so asking again costs only the new steps."""
    _tracked(state)
    slot = ("chain", player)
    cell, chain, view = state._seen.get(slot) or (None, None, None)
    records, end = _records(state, cell)
    if end is not cell:
        if isinstance(end, tuple) and end[0] == "base":
            _tag, owner, _digest, view, chain, _zones = end
            if player != owner:
                raise EngineError(
                    f"this state was resampled for P{owner + 1}: only that player's observations are known"
                )
        else:  # the kept one is not on this trail
            chain, view = None, None
    elif not records:
        return chain
    view = list(view) if view is not None else [None] * len(state.zones)
    for record in records:
        if record[0] == "pick":
            if record[1] == player:
                seen = _observe_any(state, player, view, record[4])
                seen["choosing"] = list(record[3])
                chain = (chain, seen)
            continue
        chain = (chain, _observe_any(state, player, view, record))
    state._seen = {**state._seen, slot: (state.trail, chain, tuple(view))}
    return chain


def observations(state: Any, player: int) -> list[dict[str, Any]]:
    """Every observation of `player` so far (oldest first), rebuilt from the trail: copies,
    since the chain is kept between calls and shared with clones (a caller may change them)."""
    out = []
    chain = observation_chain(state, player)
    while chain is not None:
        chain, observation = chain
        out.append(_copied(observation))
    out.reverse()
    return out


def _copied(value: Any) -> Any:
    """A copy of an observation's value (dicts and lists of texts, numbers, None)."""
    if type(value) is dict:
        return {key: _copied(item) for key, item in value.items()}
    if type(value) is list:
        return [_copied(item) for item in value]
    return value


def _observe_any(state: Any, player: int, view: list, record: tuple) -> dict[str, Any]:
    """`observe`, also of a hidden choice in a simultaneous phase (its maker sees its own)."""
    if record[0] != "commit":
        return observe(state, player, view, record)
    seen = observe(state, player, view, record[3])
    seen["chosen"] = [list(c) for c in record[2][player]]
    return seen


def observe(state: Any, player: int, view: list, record: tuple) -> dict[str, Any]:
    """The observation of `player` after one more record (`view` updated in place), as
    State.observation gives it."""
    program = state.program
    game = state.game
    names = program.card_names
    project(state, player, view, record)
    _changes, values, public, shown, mover, action = record
    round_number, phase, current, direction, active, terminal = public
    zones = {program.zone_names[z]: [names[c] for c in v] if isinstance(v, tuple) else v for z, v in enumerate(view)}
    variables: dict[str, Any] = {}
    for name, per_player, type_ in program.variable_layout:
        offset = program.variable_offsets[name]
        chunk = values[offset : offset + (program.num_players if per_player else 1)]
        shown_values = [game.show_value(v, type_) for v in chunk]
        variables[name] = shown_values if per_player else shown_values[0]
    last_move = None
    if action is not None:
        move = game.move_of(action)
        shown_move = move.name if move.hidden and mover != player else game.key_name(action)
        last_move = {"player": mover, "move": shown_move}
    return {
        "player": player,
        "round": round_number,
        "phase": program.phases[phase].name if phase >= 0 else None,
        "current_player": current,
        "direction": direction,
        "active": list(active),
        "zones": zones,
        "variables": variables,
        "shown": [names[c] for c in shown[player]] if shown else [],
        "last_move": last_move,
        "terminal": terminal,
    }


def knowledge(state: Any, player: int) -> dict[str, str | None]:
    """Where `player` knows each card to be (a zone name), or None for a card it has not seen."""
    _tracked(state)
    program = state.program
    count = program.num_cards
    base = player * count
    return {
        program.card_names[c]: (program.zone_names[z] if (z := state.known[base + c]) >= 0 else None)
        for c in range(count)
    }
