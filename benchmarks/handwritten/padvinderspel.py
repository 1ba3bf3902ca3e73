"""Padvinderspel, written by hand in plain Python: a speed baseline for the engine.

Every decision is a uniformly random choice among all legal actions (``rng.choice``),
as the engine's random bot makes it, so the two are compared on the same work.
A forced pass still counts as a decision.
"""

from __future__ import annotations

import random

NUM_SUITS = 5  # the patrols
NUMBERS = range(1, 11)
LEADER_POINTS = 15  # a 1 (the patrol leader) left in hand counts 15

Card = tuple[int, int]  # (suit, number)
# The (lowest, highest) number laid in a suit; None while the suit is unopened.
Row = tuple[int, int] | None
Action = Card | str

DECK: tuple[Card, ...] = tuple((suit, number) for suit in range(NUM_SUITS) for number in NUMBERS)
PASS = "pass"
LAY_ALL = "lay all"

# A safety net, checked between rounds (a round ends within 50 * players decisions).
MATCH_DECISION_CAP = 200_000

DEFAULTS = {"attach": "adjacent", "target": 150}
ATTACH = ("adjacent", "higher_only")


def play_match(num_players: int, seed: int, **options) -> int:
    """Play one whole match with uniformly random legal decisions.

    Return the number of player decisions made.
    """
    rules = read_options(num_players, options)
    rng = random.Random(seed)
    totals = [0] * num_players
    dealer = 0
    decisions = 0
    while decisions < MATCH_DECISION_CAP:
        winner, points, used = play_round(rng, num_players, dealer, rules["attach"] == "adjacent")
        decisions += used
        if winner is not None:
            totals[winner] += points
        best = max(totals)
        if best >= rules["target"] and totals.count(best) == 1:
            break
        dealer = (dealer + 1) % num_players
    return decisions


def read_options(num_players: int, options: dict) -> dict:
    """Fill in the defaults; refuse unknown options, so a typo cannot pass."""
    if not 2 <= num_players <= 6:
        raise ValueError(f"Padvinderspel is for 2-6 players, not {num_players}")
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown Padvinderspel options: {sorted(unknown)}")
    rules = {**DEFAULTS, **options}
    if rules["attach"] not in ATTACH:
        raise ValueError(f"attach must be one of {ATTACH}")
    if rules["target"] < 1:
        raise ValueError("target must be positive")
    return rules


def play_round(rng: random.Random, num_players: int, dealer: int, adjacent: bool) -> tuple[int | None, int, int]:
    """Play one round; return (winner or None if all passed, points, decisions)."""
    deck = list(DECK)
    rng.shuffle(deck)
    hands: list[list[Card]] = [[] for _ in range(num_players)]
    for i, card in enumerate(deck):
        hands[(dealer + 1 + i) % num_players].append(card)

    # The start player opens a suit with any card; its number is the start number.
    player = (dealer + 1) % num_players
    rows: list[Row] = [None] * NUM_SUITS
    opening = rng.choice(hands[player])
    hands[player].remove(opening)
    lay(rows, opening)
    start = opening[1]
    decisions = 1
    passes = 0
    while True:
        player = (player + 1) % num_players
        hand = hands[player]
        action = rng.choice(legal_actions(hand, rows, start, adjacent))
        decisions += 1
        if action == PASS:
            passes += 1
            if passes == num_players:  # a full cycle of passes: nobody can move
                return None, 0, decisions
            continue
        passes = 0
        if action == LAY_ALL:
            hand.clear()  # the rows no longer matter: the round is over
        else:
            hand.remove(action)
            lay(rows, action)
        if not hand:
            return player, score(hands), decisions


def legal_actions(hand: list[Card], rows: list[Row], start: int, adjacent: bool) -> list[Action]:
    """Each attachable card, "lay all" when the whole hand chains out; else "pass"."""
    actions: list[Action] = [card for card in hand if attaches(card, rows, start, adjacent)]
    if not actions:
        return [PASS]
    if can_lay_all(hand, rows, start, adjacent):
        actions.append(LAY_ALL)
    return actions


def attaches(card: Card, rows: list[Row], start: int, adjacent: bool) -> bool:
    """A card opens its suit on the start number, or extends the suit's row by one."""
    suit, number = card
    row = rows[suit]
    if row is None:
        return number == start
    low, high = row
    return number == high + 1 or (adjacent and number == low - 1)


def can_lay_all(hand: list[Card], rows: list[Row], start: int, adjacent: bool) -> bool:
    """Whether the whole hand attaches card by card: per suit, one reachable run."""
    by_suit: dict[int, list[int]] = {}
    for suit, number in hand:
        by_suit.setdefault(suit, []).append(number)
    for suit, numbers in by_suit.items():
        low, high = min(numbers), max(numbers)
        row = rows[suit]
        if row is None:
            # Unopened: the cards alone run through (adjacent) or up from (higher_only)
            # the start number.
            reachable = low <= start <= high if adjacent else low == start
            if not reachable or high - low + 1 != len(numbers):
                return False
        elif adjacent:
            # Cards may go below and above the row; together they must leave no gap.
            span = max(high, row[1]) - min(low, row[0]) + 1
            if span != len(numbers) + row[1] - row[0] + 1:
                return False
        elif low != row[1] + 1 or high - low + 1 != len(numbers):
            return False  # higher_only: an unbroken run straight up from the row's top
    return True


def lay(rows: list[Row], card: Card) -> None:
    """Attach a card to its suit's row, widening the row's range."""
    suit, number = card
    row = rows[suit]
    rows[suit] = (number, number) if row is None else (min(row[0], number), max(row[1], number))


def score(hands: list[list[Card]]) -> int:
    """The numbers left in all hands (the winner's is empty), a 1 counting 15."""
    return sum(LEADER_POINTS if number == 1 else number for hand in hands for _, number in hand)
