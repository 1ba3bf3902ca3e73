"""Padan (the revised two-player version), written by hand: a speed baseline.

The shape shared by the three baselines: one match object holds the whole state and
offers `legal_actions()` and `apply(action)`; `play_match` makes every decision a uniformly
random choice among all legal actions (``rng.choice``), as the engine's random bot does,
so the two are compared on the same work. A forced decision (a draft packet that can only
go one way) still counts as a decision.
"""

from __future__ import annotations

import random

# Suits in the order that breaks ties in the seat draw.
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
RANKS = range(3, 15)  # 3 low .. A (14) high; the 2s are set aside as the trump deck

Card = tuple[int, int]  # (rank, suit): tuple order is the seat-draw order

DECK: tuple[Card, ...] = tuple((rank, suit) for suit in range(4) for rank in RANKS)
TRUMP_DECK = (CLUBS, DIAMONDS, HEARTS, SPADES)  # the four 2s, known by their suits
PACKET_SIZE = 6
MAX_PACKETS = 4
PICK_UP_AT = 3  # cards left in each hand when the next packets are taken up
KEEP, GIVE = "keep", "give"

# A safety net (a deal is always 64 decisions).
MATCH_DECISION_CAP = 200_000

DEFAULTS = {"target": 100}


def play_match(num_players: int, seed: int, **options) -> int:
    """Play one whole match with uniformly random legal decisions; return the decisions made."""
    rng = random.Random(seed)
    match = Match(rng, read_options(num_players, options))
    decisions = 0
    while not match.over and decisions < MATCH_DECISION_CAP:
        match.apply(rng.choice(match.legal_actions()))
        decisions += 1
    return decisions


def read_options(num_players: int, options: dict) -> dict:
    """Fill in the defaults; refuse what Padan does not know, so a typo cannot pass."""
    if num_players != 2:
        raise ValueError(f"Padan is for 2 players, not {num_players}")
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown Padan options: {sorted(unknown)}")
    rules = {**DEFAULTS, **options}
    if rules["target"] < 1:
        raise ValueError("target must be positive")
    return rules


def draw_for_seats(rng: random.Random) -> tuple[int, int]:
    """Each draws a card, seat 0 first: the low card drafts first, the other leads."""
    deck = list(DECK)
    rng.shuffle(deck)
    drafter = 0 if deck[0] < deck[1] else 1
    return drafter, 1 - drafter


DRAFT, PICK, LEAD, FOLLOW = range(4)  # what the player to move decides


class Match:
    """A whole match of deals: turn a trump, draft eight packets, play 24 tricks."""

    def __init__(self, rng: random.Random, rules: dict):
        self.rng = rng
        self.target = rules["target"]
        self.scores = [0, 0]
        self.first_drafter, self.first_leader = draw_for_seats(rng)
        self.over = False
        self.new_deal()

    def new_deal(self) -> None:
        rng = self.rng
        twos = list(TRUMP_DECK)
        rng.shuffle(twos)
        self.trump = twos[0]
        self.stock = list(DECK)
        rng.shuffle(self.stock)
        self.packets: list[list[list[Card]]] = [[], []]
        self.hands: list[list[Card]] = [[], []]
        self.leader = self.first_leader
        self.player = self.first_drafter
        self.phase = DRAFT
        self.picks_left = 0
        self.lead: Card | None = None

    def legal_actions(self) -> list:
        phase, player = self.phase, self.player
        if phase == FOLLOW:
            return follow_actions(self.hands[player], self.lead[1])  # type: ignore[index]
        if phase == LEAD:
            return self.hands[player][:]
        if phase == DRAFT:
            return draft_actions(self.packets, player)
        return list(range(len(self.packets[player])))  # PICK: blind, only the position

    def apply(self, action) -> None:
        phase, player = self.phase, self.player
        if phase == LEAD:
            self.hands[player].remove(action)
            self.lead = action
            self.player = 1 - player
            self.phase = FOLLOW
        elif phase == FOLLOW:
            self.hands[player].remove(action)
            winner = self.leader if leader_wins(self.lead, action, self.trump) else player  # type: ignore[arg-type]
            self.scores[winner] += 1
            self.leader = self.player = winner
            if not self.hands[winner]:
                self.end_deal()
            elif len(self.hands[winner]) == PICK_UP_AT and self.packets[winner]:
                self.phase, self.picks_left = PICK, 2
            else:
                self.phase = LEAD
        elif phase == DRAFT:
            packet = self.stock[-PACKET_SIZE:]
            del self.stock[-PACKET_SIZE:]
            self.packets[player if action == KEEP else 1 - player].append(packet)
            self.player = 1 - player
            if not self.stock:
                self.player, self.phase, self.picks_left = self.leader, PICK, 2
        else:  # PICK: the leader, then the other, takes up one of their packets
            self.hands[player].extend(self.packets[player].pop(action))
            self.picks_left -= 1
            if self.picks_left:
                self.player = 1 - player
            else:
                self.player, self.phase = self.leader, LEAD

    def end_deal(self) -> None:
        scores = self.scores
        if max(scores) >= self.target and scores[0] != scores[1]:
            self.over = True
            return
        # both roles alternate every deal
        self.first_drafter, self.first_leader = 1 - self.first_drafter, 1 - self.first_leader
        self.new_deal()


def draft_actions(packets: list[list[list[Card]]], drafter: int) -> list[str]:
    """Keep or give; a side that already holds four packets cannot take another."""
    if len(packets[drafter]) == MAX_PACKETS:
        return [GIVE]
    if len(packets[1 - drafter]) == MAX_PACKETS:
        return [KEEP]
    return [KEEP, GIVE]


def follow_actions(hand: list[Card], led_suit: int) -> list[Card]:
    """Follow suit when able, otherwise any card."""
    same_suit = [card for card in hand if card[1] == led_suit]
    return same_suit or hand


def leader_wins(lead: Card, follow: Card, trump: int) -> bool:
    """A higher card of the led suit beats the lead; so does a trump on a plain lead."""
    if follow[1] == lead[1]:
        return lead[0] > follow[0]
    return follow[1] != trump
