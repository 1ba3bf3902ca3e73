"""Padan (the revised two-player version), written by hand: a speed baseline.

Every decision is a uniformly random choice among all legal actions (``rng.choice``),
as the engine's random bot makes it, so the two are compared on the same work.
A forced decision (a draft packet that can only go one way) still counts as a decision.
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

# A safety net, checked between deals (a deal is always 64 decisions).
MATCH_DECISION_CAP = 200_000

DEFAULTS = {"target": 100}


def play_match(num_players: int, seed: int, **options) -> int:
    """Play one whole match with uniformly random legal decisions.

    Return the number of player decisions made.
    """
    target = read_options(num_players, options)["target"]
    rng = random.Random(seed)
    drafter, leader = draw_for_seats(rng)
    scores = [0, 0]
    decisions = 0
    while decisions < MATCH_DECISION_CAP:
        points, used = play_deal(rng, drafter, leader)
        decisions += used
        scores[0] += points[0]
        scores[1] += points[1]
        if max(scores) >= target and scores[0] != scores[1]:
            break
        drafter, leader = 1 - drafter, 1 - leader  # both roles alternate every deal
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


def play_deal(rng: random.Random, drafter: int, leader: int) -> tuple[list[int], int]:
    """Turn a trump, draft eight packets, play 24 tricks; return (points, decisions)."""
    twos = list(TRUMP_DECK)
    rng.shuffle(twos)
    trump = twos[0]
    stock = list(DECK)
    rng.shuffle(stock)

    packets: list[list[list[Card]]] = [[], []]
    decisions = 0
    while stock:
        packet = stock[-PACKET_SIZE:]
        del stock[-PACKET_SIZE:]
        choice = rng.choice(draft_actions(packets, drafter))
        decisions += 1
        packets[drafter if choice == KEEP else 1 - drafter].append(packet)
        drafter = 1 - drafter

    hands: list[list[Card]] = [[], []]
    decisions += pick_packets(rng, packets, hands, leader)
    points = [0, 0]
    while hands[leader]:
        lead = rng.choice(hands[leader])
        hands[leader].remove(lead)
        follower = 1 - leader
        follow = rng.choice(follow_actions(hands[follower], lead[1]))
        hands[follower].remove(follow)
        decisions += 2
        leader = leader if leader_wins(lead, follow, trump) else follower
        points[leader] += 1
        if len(hands[leader]) == PICK_UP_AT and packets[leader]:
            decisions += pick_packets(rng, packets, hands, leader)
    return points, decisions


def draft_actions(packets: list[list[list[Card]]], drafter: int) -> list[str]:
    """Keep or give; a side that already holds four packets cannot take another."""
    if len(packets[drafter]) == MAX_PACKETS:
        return [GIVE]
    if len(packets[1 - drafter]) == MAX_PACKETS:
        return [KEEP]
    return [KEEP, GIVE]


def pick_packets(
    rng: random.Random,
    packets: list[list[list[Card]]],
    hands: list[list[Card]],
    first: int,
) -> int:
    """`first`, then the other, takes up one of their packets; return the decisions."""
    for player in (first, 1 - first):
        # Blind: only the position of the face-down packet is chosen.
        index = rng.choice(list(range(len(packets[player]))))
        hands[player].extend(packets[player].pop(index))
    return 2


def follow_actions(hand: list[Card], led_suit: int) -> list[Card]:
    """Follow suit when able, otherwise any card."""
    same_suit = [card for card in hand if card[1] == led_suit]
    return same_suit or hand


def leader_wins(lead: Card, follow: Card, trump: int) -> bool:
    """A higher card of the led suit beats the lead; so does a trump on a plain lead."""
    if follow[1] == lead[1]:
        return lead[0] > follow[0]
    return follow[1] != trump
