"""Padvinderspel, written by hand in plain Python: a speed baseline for the engine.

The shape shared by the three baselines: one match object holds the whole state and
offers `legal_actions()` and `apply(action)`; `play_match` makes every decision a uniformly
random choice among all legal actions (``rng.choice``), as the engine's random bot does,
so the two are compared on the same work. A forced pass still counts as a decision.

Written for speed as a careful engineer would: a card is a number, 0..49, whose suit and
number are read from tables; whether each card attaches is a table too, updated when a row
grows (a lookup per card, not a function call); whether the whole hand can be laid is only
asked when some card attaches and more than one is held (one card left is simply attached).
"""

from __future__ import annotations

import random

NUM_SUITS = 5  # the patrols
NUMBERS = range(1, 11)
LEADER_POINTS = 15  # a 1 (the patrol leader) left in hand counts 15

Card = int  # suit * 10 + number - 1
# The (lowest, highest) number laid in a suit; None while the suit is unopened.
Row = tuple[int, int] | None
Action = Card | str

DECK: tuple[Card, ...] = tuple(range(NUM_SUITS * len(NUMBERS)))
SUIT = tuple(card // len(NUMBERS) for card in DECK)
NUMBER = tuple(card % len(NUMBERS) + 1 for card in DECK)
POINTS = tuple(LEADER_POINTS if number == 1 else number for number in NUMBER)
PASS = "pass"
LAY_ALL = "lay all"


def card_of(suit: int, number: int) -> Card:
    """The card of a suit and a number 1..10."""
    return suit * len(NUMBERS) + number - 1


# A safety net (a round ends within 50 * players decisions).
MATCH_DECISION_CAP = 200_000

DEFAULTS = {"attach": "adjacent", "target": 150, "language": "en"}
ATTACH = ("adjacent", "higher_only")
LANGUAGES = ("en", "nl")  # only the names shown change


def play_match(num_players: int, seed: int, **options) -> int:
    """Play one whole match with uniformly random legal decisions; return the decisions made."""
    rng = random.Random(seed)
    match = Match(num_players, rng, read_options(num_players, options))
    decisions = 0
    while not match.over and decisions < MATCH_DECISION_CAP:
        match.apply(rng.choice(match.legal_actions()))
        decisions += 1
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
    if rules["language"] not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}")
    if rules["target"] < 1:
        raise ValueError("target must be positive")
    return rules


class Match:
    """A whole match: rounds dealt in turn by each seat until someone reaches the target."""

    def __init__(self, num_players: int, rng: random.Random, rules: dict):
        self.rng = rng
        self.num_players = num_players
        self.adjacent = rules["attach"] == "adjacent"
        self.target = rules["target"]
        self.totals = [0] * num_players
        self.dealer = 0
        self.over = False
        self.new_round()

    def new_round(self) -> None:
        deck = list(DECK)
        self.rng.shuffle(deck)
        n = self.num_players
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        for i, card in enumerate(deck):
            self.hands[(self.dealer + 1 + i) % n].append(card)
        self.rows: list[Row] = [None] * NUM_SUITS
        self.start = 0  # the start number; 0 until the start player opens a suit
        self.playable = [False] * len(DECK)  # whether each card attaches now
        self.player = (self.dealer + 1) % n
        self.passes = 0

    def legal_actions(self) -> list[Action]:
        hand = self.hands[self.player]
        if not self.start:
            return hand[:]  # the start player opens with any card
        playable = self.playable
        actions: list[Action] = [card for card in hand if playable[card]]
        if not actions:
            return [PASS]
        if len(hand) > 1 and can_lay_all(hand, self.rows, self.start, self.adjacent):
            actions.append(LAY_ALL)
        return actions

    def apply(self, action: Action) -> None:
        hand = self.hands[self.player]
        if action == PASS:
            self.passes += 1
            if self.passes == self.num_players:  # a full cycle of passes: nobody scores
                self.end_round(None)
                return
        else:
            self.passes = 0
            if action == LAY_ALL:
                hand.clear()  # the rows no longer matter: the round is over
            else:
                hand.remove(action)  # type: ignore[arg-type]
                self.lay(action)  # type: ignore[arg-type]
            if not hand:
                self.end_round(self.player)
                return
        self.player = (self.player + 1) % self.num_players

    def lay(self, card: Card) -> None:
        """Attach a card to its suit's row; the cards that attach to that row change."""
        suit, number = SUIT[card], NUMBER[card]
        playable = self.playable
        if not self.start:  # the start card: each unopened suit takes the start number
            self.start = number
            for other in range(NUM_SUITS):
                playable[card_of(other, number)] = True
        row = self.rows[suit]
        low, high = (number, number) if row is None else (min(row[0], number), max(row[1], number))
        self.rows[suit] = (low, high)
        playable[card] = False
        if high < NUMBERS[-1]:
            playable[card_of(suit, high + 1)] = True
        if self.adjacent and low > NUMBERS[0]:
            playable[card_of(suit, low - 1)] = True

    def end_round(self, winner: int | None) -> None:
        if winner is not None:
            self.totals[winner] += sum([POINTS[card] for hand in self.hands for card in hand])
        best = max(self.totals)
        if best >= self.target and self.totals.count(best) == 1:
            self.over = True
            return
        self.dealer = (self.dealer + 1) % self.num_players
        self.new_round()


def can_lay_all(hand: list[Card], rows: list[Row], start: int, adjacent: bool) -> bool:
    """Whether the whole hand attaches card by card: per suit, one reachable run."""
    by_suit: dict[int, list[int]] = {}
    for card in hand:
        numbers = by_suit.get(SUIT[card])
        if numbers is None:
            by_suit[SUIT[card]] = [NUMBER[card]]
        else:
            numbers.append(NUMBER[card])
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
