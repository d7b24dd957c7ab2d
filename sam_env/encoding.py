"""Observation and action tables: the numbers a learning agent sees.

Actions are the combination ids of :mod:`sam_env.core.combos` (one fixed ``Discrete`` space for
every rule configuration). Observations are flat ``float32`` vectors assembled from named blocks
(see :func:`observation_layout`); the layout depends only on the number of seats.

Rank counts are written *unary* (13 ranks × 4 bits: "holds at least 1, 2, 3, 4"), which is
what a network needs to see pairs, triples and quads at a glance, and suits are dropped because
they never decide a play. Seats are *relative*: block row 0 is the observer, row 1 the next seat
in turn order, and so on — the same policy can then sit in any seat.

Versions: an encoding version names a layout, and every version extends the one before it with
blocks at the end, so the observation of an earlier version is the first ``observation_size(n, v)``
numbers of a later one (a network trained on version 1 plays at a version-2 table by reading that
prefix, exactly as before). :data:`ENCODING_VERSIONS` lists them:

* version 1: the current trick and the cards played, nothing of earlier tricks;
* version 2: also a compact history of the hand per opponent (``declined``): for single, pair, triple
  and straight, the plays that opponent has passed on, written from the lowest key it declined
  upwards (:attr:`sam_env.core.game.Hand.declined`) — an opponent that would not beat a single 9
  probably holds no single above it.

``sam_env.env()``, ``VectorEnv`` and the trainers encode :data:`ENCODING_VERSION` (version 1) unless
given ``encoding_version=``: every program written against the flat observation, and every network
trained before version 2, then sees what it always saw. A checkpoint records the version it was
trained on, and whatever builds a table for it asks for that version (or a later one).

Checkpoints record :func:`fingerprint` — a hash of the layout, the action table and the scaling
constants — and refuse to load when it differs, so a change nobody remembered to announce (two
blocks of the same size swapped, an action renamed) cannot make a network play garbage. A change of
the layout or the action table on purpose is a new version in :data:`ENCODING_VERSIONS`: it names the
change in error messages.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from .core.cards import FULL_DECK, N_RANKS, N_SUITS, unary_of_cards
from .core.combos import N_COMBOS, combo_index, combo_name
from .core.game import DECLINED_KEYS, DECLINED_KINDS, NO_PLAY, Hand, Phase
from .core.rules import CARDS_PER_HAND

ENCODING_VERSIONS = (1, 2)
"""Every observation encoding version this sam-env writes, oldest first; each extends the one before it."""
ENCODING_VERSION = 1
"""The version tables encode unless asked for another (``encoding_version=``): the one every earlier program reads."""
LATEST_ENCODING_VERSION = ENCODING_VERSIONS[-1]
DECLINED_BITS = len(DECLINED_KINDS) * DECLINED_KEYS
"""Size of one opponent's row of the ``declined`` block (version 2)."""
N_ACTIONS = N_COMBOS
UNARY = N_RANKS * N_SUITS
CHAIN_SCALE = 20.0
"""Chop-chain money ``v`` is observed as ``v / (v + CHAIN_SCALE)``: monotone, 0.5 at one Sâm unit, below 1."""


def action_name(index: int) -> str:
    """Stable name of an action index, e.g. ``action_name(5) == "single:5"``."""
    return combo_name(index)


def action_index(name: str) -> int:
    """Action index of a name such as ``"pair:K"``, ``"straight:A-3"`` or ``"double_quad:5+9"``."""
    return combo_index(name)


def check_encoding_version(version: object) -> int:
    """``version`` if this sam-env encodes it; a ``ValueError`` naming the versions it does otherwise."""
    if isinstance(version, bool) or version not in ENCODING_VERSIONS:
        raise ValueError(
            f"encoding_version={version!r} is not an observation encoding version of this sam-env; "
            f"expected one of {list(ENCODING_VERSIONS)}"
        )
    return int(version)  # type: ignore[call-overload]


def observation_layout(n_players: int, version: int = ENCODING_VERSION) -> list[tuple[str, int]]:
    """Named blocks of the observation vector of encoding ``version``, in order, with their sizes."""
    n = n_players
    history = [("declined", (n - 1) * DECLINED_BITS)] if check_encoding_version(version) >= 2 else []
    return [
        ("hand", UNARY),  # own rank counts, unary
        ("unseen", UNARY),  # rank counts of cards the observer cannot see, unary
        ("played", n * UNARY),  # per relative seat: rank counts played this hand, unary
        ("cards_left", n * (CARDS_PER_HAND + 1)),  # per relative seat: one-hot 0..10
        ("one_card", n),  # per relative seat: báo 1
        ("table_play", N_COMBOS),  # one-hot combination to beat; zeros on a free lead
        ("table_owner", n),  # relative seat that made it
        ("passed", n),  # relative seats out of the current trick
        ("out", n),  # relative seats out of the hand (finished on 2s, lose_and_continue)
        ("sam_declarer", n),  # relative seat that declared Sâm
        ("leader", n),  # the would-be leader, asked first about Sâm
        ("phase", len(Phase)),  # one-hot: Sâm decisions, play, over
        ("responsible", 1),  # the observer is the upper seat of a one-card seat
        ("chain_value", 1),  # chop-chain money v at stake on the table, as v / (v + CHAIN_SCALE)
        *history,  # version 2: per opponent in turn order, the plays it passed on, from the lowest key up
    ]


def observation_size(n_players: int, version: int = ENCODING_VERSION) -> int:
    """Length of the observation vector for a table of ``n_players`` seats (checkpoints record it)."""
    return sum(size for _, size in observation_layout(n_players, version))


def readable_sizes(n_players: int, version: int) -> frozenset[int]:
    """The observation widths a network of encoding ``version`` reads at a table of ``n_players`` seats: its
    own and every later version's, whose observations start with its own (the network reads that prefix)."""
    return frozenset(observation_size(n_players, v) for v in ENCODING_VERSIONS if v >= version)


def readable_rows(observations: np.ndarray, n_players: int, version: int, reader: str) -> np.ndarray:
    """``float32[k, width]``: the rows as given (not copied when they are ``float32`` already), if a network of
    encoding ``version`` can read them — its own encoding's width or a later version's; ``ValueError`` naming
    ``reader`` for rows of any other width (another seat count, an unknown encoding), which would otherwise be read
    in the wrong places."""
    rows = np.asarray(observations, dtype=np.float32)
    if rows.ndim != 2 or rows.shape[1] not in readable_sizes(n_players, version):
        widths = ", ".join(map(str, sorted(readable_sizes(n_players, version))))
        raise ValueError(
            f"{reader}: observations of shape {rows.shape}, but it reads rows of {widths} numbers: encoding version "
            f"{version} (or a later one) of a {n_players}-player table"
        )
    return rows


def network_input(observations: np.ndarray, n_players: int, version: int, reader: str) -> np.ndarray:
    """``float32[k, size]``: the rows as a network of encoding ``version`` reads them (their first ``size``
    numbers, :func:`observation_size`), checked by :func:`readable_rows`."""
    return readable_rows(observations, n_players, version, reader)[:, : observation_size(n_players, version)]


def fingerprint(n_players: int, version: int = ENCODING_VERSION) -> str:
    """SHA-256 of everything a network trained on encoding ``version`` depends on, for ``n_players`` seats.

    It covers the observation layout (block names, sizes and order), every action name in order,
    the unary coding of rank counts and :data:`CHAIN_SCALE`, and from version 2 the version and the
    kinds and keys of the ``declined`` block. Checkpoints store it and are refused when it differs: the
    weights would read their inputs, or write their outputs, in the wrong places.
    """
    facts: dict[str, object] = {
        "observation_layout": observation_layout(n_players, version),
        "actions": [action_name(i) for i in range(N_ACTIONS)],
        "unary": [N_RANKS, N_SUITS],
        "chain_scale": CHAIN_SCALE,
    }
    if version >= 2:
        facts["version"] = version
        facts["declined"] = {"kinds": [k.name for k in DECLINED_KINDS], "keys": DECLINED_KEYS}
    return hashlib.sha256(json.dumps(facts, separators=(",", ":")).encode()).hexdigest()


def state_layout(n_players: int) -> list[tuple[str, int]]:
    """Named blocks of the perfect-information state (absolute seats), for centralized critics."""
    n = n_players
    return [
        ("hands", n * UNARY),
        ("played", n * UNARY),
        ("cards_left", n * (CARDS_PER_HAND + 1)),
        ("table_play", N_COMBOS),
        ("table_owner", n),
        ("passed", n),
        ("out", n),
        ("sam_declarer", n),
        ("leader", n),
        ("to_act", n),
        ("phase", len(Phase)),
        ("chain_value", 1),
    ]


def _offsets(layout: list[tuple[str, int]]) -> tuple[dict[str, int], int]:
    offsets, pos = {}, 0
    for name, size in layout:
        offsets[name] = pos
        pos += size
    return offsets, pos


_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)
"""``float32[256, 8]``: the bits of each byte value, lowest first (one look-up unpacks a byte)."""


class Encoder:
    """Builds observation and state vectors for one seat count; the layouts are computed once.

    Every entry but the chop-chain value is 0/1, so a vector is assembled as the bits of one
    Python integer and unpacked by numpy in a single call. The bit positions of each seat's
    blocks are precomputed for every observer (a "plan"): an observation is built at every step
    of every training run, so it should cost a few integer operations per seat and no more.
    """

    def __init__(self, n_players: int, version: int = ENCODING_VERSION) -> None:
        self.n_players = n_players
        self.version = check_encoding_version(version)
        self.layout = observation_layout(n_players, version)
        self.state_layout = state_layout(n_players)
        self._obs, self.size = _offsets(self.layout)
        self._state, self.state_size = _offsets(self.state_layout)
        orders = [[(seat + k) % n_players for k in range(n_players)] for seat in range(n_players)]
        self._obs_plans = [_seat_plan(self._obs, order) for order in orders]
        at = self._obs.get("declined")
        self._declined_plans = [
            tuple((s, at + (k - 1) * DECLINED_BITS) for k, s in enumerate(order) if k > 0) if at is not None else ()
            for order in orders
        ]
        """Per observer: each opponent's seat and where its ``declined`` row starts (none before version 2)."""
        self._state_plan = _seat_plan(self._state, orders[0])
        self._obs_shared = _shared_blocks(self._obs, self.size)
        self._state_shared = _shared_blocks(self._state, self.state_size)

    def observe(self, hand: Hand, seat: int) -> np.ndarray:
        """The observation of ``seat`` (seat-relative; see :func:`observation_layout`)."""
        o = self._obs
        unseen = FULL_DECK ^ (hand.cards[seat] | hand.all_played)
        bits = hand.unary[seat] << o["hand"] | unary_of_cards(unseen) << o["unseen"]
        bits |= _seat_bits(hand, self._obs_plans[seat])
        declined = hand.declined
        for s, at in self._declined_plans[seat]:
            bits |= declined[s] << at
        if hand.phase is Phase.PLAY and hand.responsible(seat):
            bits |= 1 << o["responsible"]
        return self._vector(bits, self._obs_shared, hand, seat)

    def state(self, hand: Hand) -> np.ndarray:
        """The perfect-information state (absolute seats; see :func:`state_layout`)."""
        o = self._state
        bits = _seat_bits(hand, self._state_plan)
        for s, unary in enumerate(hand.unary):
            bits |= unary << (o["hands"] + s * UNARY)
        if not hand.over:
            bits |= 1 << (o["to_act"] + hand.to_act)
        return self._vector(bits, self._state_shared, hand, 0)

    def _vector(self, bits: int, shared: SharedBlocks, hand: Hand, seat: int) -> np.ndarray:
        """Add the blocks shared by observation and state (seats relative to ``seat``) and unpack."""
        table_at, owner_at, declarer_at, leader_at, phase_at, chain_at, size, n_bytes = shared
        n = self.n_players
        table = hand.table_combo
        if table != NO_PLAY:
            bits |= 1 << (table_at + table) | 1 << (owner_at + (hand.table_owner - seat) % n)
        declarer = hand.sam_declarer
        if declarer is not None:
            bits |= 1 << (declarer_at + (declarer - seat) % n)
        bits |= 1 << (leader_at + (hand.leader - seat) % n) | 1 << (phase_at + hand.phase)
        out = _BYTE_BITS.take(np.frombuffer(bits.to_bytes(n_bytes, "little"), dtype=np.uint8), axis=0)
        out = out.reshape(-1)[:size]
        if table != NO_PLAY:
            value = hand.chain_value()
            out[chain_at] = value / (value + CHAIN_SCALE)
        return out


SharedBlocks = tuple[int, int, int, int, int, int, int, int]
"""Offsets of table play, table owner, Sâm declarer, leader, phase, chain value; size; size in bytes."""


def _shared_blocks(o: dict[str, int], size: int) -> SharedBlocks:
    """The offsets ``_vector`` needs, as one tuple it unpacks at once (dict look-ups cost per step)."""
    names = ("table_play", "table_owner", "sam_declarer", "leader", "phase", "chain_value")
    return (*(o[name] for name in names), size, (size + 7) // 8)


SeatPlan = tuple[tuple[int, int, tuple[int, ...], int, int], ...]
"""Per seat, in block-row order: (seat, played offset, cards-left bits by count, passed bit, out bit)."""


def _seat_plan(o: dict[str, int], seats: list[int]) -> SeatPlan:
    """Where each seat's per-seat blocks go when the block rows follow ``seats``.

    The cards-left one-hot and the báo-1 flag both follow from the seat's card count, so the
    plan holds their bits for every count (the state has no báo-1 block: cards left says it).
    """
    one = o.get("one_card")
    plan = []
    for row, s in enumerate(seats):
        left = [1 << (o["cards_left"] + row * (CARDS_PER_HAND + 1) + c) for c in range(CARDS_PER_HAND + 1)]
        if one is not None:
            left[1] |= 1 << (one + row)
        plan.append((s, o["played"] + row * UNARY, tuple(left), 1 << (o["passed"] + row), 1 << (o["out"] + row)))
    return tuple(plan)


def _seat_bits(hand: Hand, plan: SeatPlan) -> int:
    """Per-seat blocks (played cards, cards left, báo 1, passed, out) placed as the plan says."""
    bits = 0
    n_cards, played_unary, passed, out = hand.n_cards, hand.played_unary, hand.passed, hand.out
    for s, played_at, left_bits, passed_bit, out_bit in plan:
        bits |= played_unary[s] << played_at | left_bits[n_cards[s]]
        if passed[s]:
            bits |= passed_bit
        if out[s]:
            bits |= out_bit
    return bits
