"""Pan, written by hand in plain Python: a speed baseline for the rules engine.

The shape shared by the three baselines: one match object holds the whole state and
offers `legal_actions()` and `apply(action)`; `play_match` makes every decision a uniformly
random choice among all legal actions (``rng.choice``), as the engine's random bot does,
so the two are compared on the same work. A forced decision (opening with the 9 of hearts
alone) still counts as a decision.
"""

from __future__ import annotations

import random
from itertools import combinations

HEARTS, DIAMONDS, CLUBS, SPADES = range(4)
RANKS = (9, 10, 11, 12, 13, 14)  # 9, 10, J, Q, K, A

Card = tuple[int, int]  # (rank, suit)
Move = tuple[Card, ...]  # the cards played; the empty tuple means "pick up"

DECK: tuple[Card, ...] = tuple((rank, suit) for rank in RANKS for suit in range(4))
NINE_OF_HEARTS: Card = (9, HEARTS)
PICK_UP: Move = ()

DEAL_DECISION_CAP = 2000  # a rule: a deal this long is a draw
# A safety net (each deal is capped by the rule above).
MATCH_DECISION_CAP = 200_000

DEFAULTS = {
    "word": "PAN",
    "reversed_spades": False,
    "triples": "equal",
    "fours": "higher",
}
TRIPLES = ("equal", "nines_only", "equal_or_higher")
FOURS = ("higher", "equal_or_higher")


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
    """Fill in the defaults; refuse what Pan does not know, so a typo cannot pass."""
    if not 2 <= num_players <= 4:
        raise ValueError(f"Pan is for 2-4 players, not {num_players}")
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown Pan options: {sorted(unknown)}")
    rules = {**DEFAULTS, **options}
    if not rules["word"]:
        raise ValueError("word must not be empty")
    if rules["triples"] not in TRIPLES:
        raise ValueError(f"triples must be one of {TRIPLES}")
    if rules["fours"] not in FOURS:
        raise ValueError(f"fours must be one of {FOURS}")
    return rules


class Match:
    """A whole match: deals until one player has every letter of the word."""

    def __init__(self, num_players: int, rng: random.Random, rules: dict):
        self.rng = rng
        self.num_players = num_players
        self.word_length = len(rules["word"])
        self.reversed_spades = rules["reversed_spades"]
        self.triples = rules["triples"]
        self.fours = rules["fours"]
        self.letters = [0] * num_players
        self.dealer = 0
        self.over = False
        self.new_deal()

    def new_deal(self) -> None:
        deck = list(DECK)
        self.rng.shuffle(deck)
        n = self.num_players
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        for i, card in enumerate(deck):
            self.hands[(self.dealer + 1 + i) % n].append(card)
        self.player = next(seat for seat, hand in enumerate(self.hands) if NINE_OF_HEARTS in hand)
        self.moves = opening_moves(self.hands[self.player])
        self.pile: list[Card] = []
        self.direction = 1
        self.final_turn = False
        self.decisions = 0  # in this deal

    def legal_actions(self) -> list[Move]:
        return self.moves

    def apply(self, move: Move) -> None:
        hands, player = self.hands, self.player
        hand = hands[player]
        apply_move(hand, self.pile, move)
        self.decisions += 1
        if self.final_turn:
            # The last holder's extra turn: going out too makes the deal a draw.
            self.end_deal(player if hand else None)
            return
        if self.reversed_spades and any(suit == SPADES for _, suit in move):
            self.direction = -self.direction
        if not hand:
            holders = sum(1 for other in hands if other)
            if holders == 0:
                self.end_deal(None)
                return
            self.final_turn = holders == 1
        if self.decisions >= DEAL_DECISION_CAP:
            self.end_deal(None)
            return
        self.player = player = next_holder(hands, player, self.direction)
        self.moves = legal_moves(hands[player], self.pile, self.triples, self.fours)

    def end_deal(self, loser: int | None) -> None:
        if loser is not None:
            self.letters[loser] += 1
            if self.letters[loser] == self.word_length:
                self.over = True
                return
        self.dealer = (self.dealer + 1) % self.num_players
        self.new_deal()


def opening_moves(hand: list[Card]) -> list[Move]:
    """The 9 of hearts alone, or all four 9s when the holder has them."""
    nines = tuple(card for card in hand if card[0] == 9)
    moves: list[Move] = [(NINE_OF_HEARTS,)]
    if len(nines) == 4:
        moves.append(nines)
    return moves


def legal_moves(hand: list[Card], pile: list[Card], triples: str, fours: str) -> list[Move]:
    """Every single card, triple and four of a kind that may be played; the pick-up."""
    top_rank = pile[-1][0]
    moves: list[Move] = []
    by_rank: dict[int, list[Card]] = {}
    for card in hand:
        if card[0] >= top_rank:  # no set below the top is ever legal either
            moves.append((card,))
            by_rank.setdefault(card[0], []).append(card)
    for rank, cards in by_rank.items():
        if len(cards) >= 3 and triple_allowed(rank, top_rank, len(pile), triples):
            moves.extend(combinations(cards, 3))
        if len(cards) == 4 and (rank > top_rank or fours == "equal_or_higher"):
            moves.append(tuple(cards))
    if len(pile) > 1:
        moves.append(PICK_UP)
    return moves


def triple_allowed(rank: int, top_rank: int, pile_size: int, triples: str) -> bool:
    """Whether three cards of `rank` may be played; `rank` is >= the top rank."""
    if triples == "equal":
        return rank == top_rank
    if triples == "nines_only":
        return pile_size == 1 and rank == 9  # only the 9 of hearts lies on the pile
    return True  # equal_or_higher


def apply_move(hand: list[Card], pile: list[Card], move: Move) -> None:
    """Play the cards, or take up to three back (never the bottom 9 of hearts)."""
    if move == PICK_UP:
        take = min(3, len(pile) - 1)
        hand.extend(pile[-take:])
        del pile[-take:]
        return
    for card in move:
        hand.remove(card)
    pile.extend(move)


def next_holder(hands: list[list[Card]], player: int, direction: int) -> int:
    """The next seat in the direction of play that still holds cards."""
    seat = player
    while True:
        seat = (seat + direction) % len(hands)
        if hands[seat]:
            return seat
