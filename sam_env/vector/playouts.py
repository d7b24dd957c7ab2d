"""``Playouts``: tables that each replay a given deal and history, then play that one hand to its end.

Why: a determinized search (:mod:`sam_env.agents.search`) deals sampled hands that agree with what a seat
has seen, replays the hand's public history on each, copies every replayed table once per
candidate move, and plays each copy to the end of the hand with models of the seats. ``VectorEnv``
can do all of that but the copy, at a cost the search pays thousands of times a decision: it deals
every table its next hand at once, reads finished hands back as Python objects, writes every
table's observation at every step and hands every forced move back to the caller. ``Playouts`` are
the same tables with the search's contract instead:

* a table plays **one hand**: when it ends the table stops, and its money is read from its ledger
  (:meth:`Playouts.net`); nothing is dealt after it;
* :meth:`Playouts.copy` makes tables copies of others (replay once, then one copy per candidate);
* :meth:`Playouts.advance` makes the given moves, then at each table every **forced** move (the only
  legal one) until a seat has a choice or the hand is over, so only decisions come back;
* observations are written only when asked (a replay needs the masks alone).

Every move is the engine's own (:func:`~.play.step_table`, :func:`~.play.legal_mask_into`,
:func:`~.encode.observation_into`, :func:`~.deal.start_dealt_hand`), so a table plays exactly as a
``VectorEnv`` table does; ``tests/vector/test_playouts.py`` checks it against ``VectorEnv`` at every
move (seat to act, mask, observation, ledger, the hand's money), copies included.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from ..core.combos import N_COMBOS
from ..core.game import IllegalMoveError
from ..core.ledger import Transfer
from ..core.rules import CARDS_PER_HAND, RuleConfig
from ..encoding import ENCODING_VERSION, check_encoding_version
from .batch import first_illegal
from .cache import SOURCES, drop_stale_cache
from .deal import start_dealt_hand
from .encode import observation_into
from .layout import (
    DEALT,
    LEDGER_LEN,
    N_FINISHED,
    NEXT_LEADER,
    NO_SEAT,
    PHASE,
    PHASE_OVER,
    RP_N,
    TO_ACT,
    allocate,
    answers_of,
    observation_offsets,
    rule_params,
)
from .play import legal_mask_into, step_table
from .results import transfers

FULL_MASK = (1 << 52) - 1


@njit(cache=True)
def deal_tables(b, rp, tables, hands, leaders):
    """Deal ``hands[i]`` at table ``tables[i]`` with would-be leader ``leaders[i]`` (``NO_SEAT``: the rule's);
    as at a ``VectorEnv`` reset, an instant win waits for the winner's one move, and nothing is dealt after the hand."""
    for i in range(tables.shape[0]):
        t = tables[i]
        b.tab[t, N_FINISHED] = 0
        b.tab[t, NEXT_LEADER] = NO_SEAT
        for s in range(rp[RP_N]):
            b.seats[t, s, DEALT] = hands[i, s]
        start_dealt_hand(b, t, rp, leaders[i])


@njit(cache=True, inline="always")
def output_into(b, t, rp, answers, off, observe, obs, mask, seat_out, n_legal):
    """Table ``t``'s seat to act, mask and number of legal moves (0 once the hand is over), and its
    observation if ``observe``."""
    seat_out[t] = b.tab[t, TO_ACT]
    legal_mask_into(b.tab, b.seats, t, rp, answers, mask[t])
    k = 0
    for a in range(mask.shape[1]):
        k += mask[t, a]
    n_legal[t] = k
    if observe and k > 0:
        observation_into(b.tab, b.seats, t, seat_out[t], rp, off, obs[t])


@njit(cache=True)
def outputs_at(b, rp, answers, off, tables, observe, obs, mask, seat_out, n_legal):
    for i in range(tables.shape[0]):
        output_into(b, tables[i], rp, answers, off, observe, obs, mask, seat_out, n_legal)


@njit(cache=True)
def step_tables(b, rp, answers, off, actions, active, forced, observe, obs, mask, seat_out, n_legal):
    """Make each active table's (checked) action; with ``forced``, then its forced moves until a seat
    has a choice or the hand is over. Writes the active tables' outputs."""
    for t in range(actions.shape[0]):
        if not active[t]:
            continue
        step_table(b, t, rp, actions[t])
        while True:
            if b.tab[t, PHASE] == PHASE_OVER:
                seat_out[t] = b.tab[t, TO_ACT]
                mask[t, :] = False
                n_legal[t] = 0
                break
            output_into(b, t, rp, answers, off, False, obs, mask, seat_out, n_legal)
            if not forced or n_legal[t] != 1:
                break
            for a in range(mask.shape[1]):
                if mask[t, a]:
                    step_table(b, t, rp, a)
                    break
        if observe and n_legal[t] > 0:
            observation_into(b.tab, b.seats, t, seat_out[t], rp, off, obs[t])


@njit(cache=True)
def net_of_ledgers(ledger, lengths, n, out):
    """Each table's money so far this hand per seat, summed from its ledger rows (payer, payee, amount)."""
    for t in range(ledger.shape[0]):
        for s in range(n):
            out[t, s] = 0
        for k in range(lengths[t]):
            out[t, ledger[t, k, 0]] -= ledger[t, k, 2]
            out[t, ledger[t, k, 1]] += ledger[t, k, 2]


# These kernels inline the engine's: a change to any of its sources must recompile them too.
drop_stale_cache(
    deal_tables, sources=(*SOURCES, Path(__file__)), modules={"playouts"}, stamp_name="sam_env_vector_playouts.sha256"
)


class Playouts:
    """``num_tables`` tables that each play one hand from a given deal (see the module docstring).

    Args:
        num_tables: how many tables.
        rules: the rules of every table (default ``RuleConfig()``).
        encoding_version: the encoding of the observations written (:data:`sam_env.encoding.ENCODING_VERSIONS`).

    The outputs are reused buffers, overwritten by every call (copy what you keep):
    ``observation`` (``float32[N, obs_dim]``, the seat to act's, where it was asked for),
    ``action_mask`` (``bool[N, 201]``), ``current_seat`` (``int64[N]``) and ``n_legal``
    (``int64[N]``, the number of legal moves: 0 once the hand is over). A table that was never
    dealt is over.
    """

    def __init__(
        self, num_tables: int, rules: RuleConfig | None = None, encoding_version: int = ENCODING_VERSION
    ) -> None:
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive int, got {num_tables!r}")
        rules = RuleConfig() if rules is None else rules
        if not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a sam_env.RuleConfig, got {type(rules).__name__}: {rules!r}")
        self.num_tables = n = int(num_tables)
        self.rules = rules
        self.n_players = rules.n_players
        self._rp = rule_params(rules)
        self._answers = answers_of(rules)
        self.encoding_version = check_encoding_version(encoding_version)
        self._off = observation_offsets(self.n_players, self.encoding_version)
        self._b = allocate(n, self.n_players, 1)
        self._b.tab[:, PHASE] = PHASE_OVER
        self.observation = np.zeros((n, int(self._off[-1])), dtype=np.float32)
        self.action_mask = np.zeros((n, N_COMBOS), dtype=bool)
        self.current_seat = np.zeros(n, dtype=np.int64)
        self.n_legal = np.zeros(n, dtype=np.int64)

    def deal(
        self, tables: np.ndarray, hands: np.ndarray, leaders: np.ndarray | None = None, observe: bool = False
    ) -> None:
        """Deal ``hands[i]`` (``int64[k, n_players]`` card masks, bit ``rank * 4 + suit``) at table
        ``tables[i]``, each led by ``leaders[i]`` (the would-be leader, asked first about Sâm; ``-1`` or
        none: the rules' first leader). At a deal with an instant win the winner is to act with one legal move
        (``sam_env.core.REVEAL_INSTANT_WIN``), which ends the hand."""
        tables = self._tables(tables)
        hands = np.ascontiguousarray(hands, dtype=np.int64)
        if hands.shape != (len(tables), self.n_players):
            raise ValueError(f"hands must have shape ({len(tables)}, {self.n_players}): one deal per table")
        _check_deals(hands)
        if leaders is None:
            leaders = np.full(len(tables), NO_SEAT, dtype=np.int64)
        leaders = np.ascontiguousarray(leaders, dtype=np.int64)
        if leaders.shape != (len(tables),) or np.any((leaders < NO_SEAT) | (leaders >= self.n_players)):
            raise ValueError(f"leaders must be one seat in 0..{self.n_players - 1} (or -1) per dealt table")
        deal_tables(self._b, self._rp, tables, hands, leaders)
        self._outputs(tables, observe)

    def observe(self, tables: np.ndarray) -> np.ndarray:
        """Write the observation of the seat to act at ``tables`` (those not over) and return the buffer."""
        self._outputs(self._tables(tables), True)
        return self.observation

    def step(self, actions: np.ndarray, active: np.ndarray, observe: bool = False) -> None:
        """One move per active table for its seat to act (checked first: an illegal one raises
        :class:`~sam_env.core.IllegalMoveError` and no table changes); observations if ``observe``."""
        self._step(actions, active, False, observe)

    def advance(self, actions: np.ndarray, active: np.ndarray, observe: bool = True) -> None:
        """As :meth:`step`, then each active table plays its forced moves until a seat has a choice
        (``n_legal > 1``) or the hand is over."""
        self._step(actions, active, True, observe)

    def copy(self, source: np.ndarray, into: np.ndarray, origin: Playouts | None = None) -> None:
        """Make table ``into[i]`` a copy of table ``source[i]`` (of ``origin``, another ``Playouts`` of the
        same rules, if given): its hand, history, ledger and outputs."""
        origin = self if origin is None else origin
        if origin.rules != self.rules:
            raise ValueError("copy: the origin's tables play other rules")
        source, into = origin._tables(source), self._tables(into)
        if source.shape != into.shape:
            raise ValueError(f"source and into must be as long: {len(source)} and {len(into)} tables")
        for mine, theirs in zip(self._state(), origin._state(), strict=True):
            mine[into] = theirs[source]

    def over(self) -> np.ndarray:
        """``bool[N]``: the tables whose hand is over (or was never dealt)."""
        return self._b.tab[:, PHASE] == PHASE_OVER

    def net(self) -> np.ndarray:
        """``int64[N, n_players]``: each table's money (X) of its hand so far per seat, from its ledger
        (chops and, once the hand is over, its settlement): ``HandResult.net`` of a finished hand."""
        out = np.zeros((self.num_tables, self.n_players), dtype=np.int64)
        net_of_ledgers(self._b.ledger, self._b.tab[:, LEDGER_LEN], self.n_players, out)
        return out

    def ledger(self, table: int) -> list[Transfer]:
        """The transfers of ``table``'s hand so far (:meth:`VectorEnv.ledger`'s)."""
        t = int(self._tables(np.array([table]))[0])
        return list(transfers(self._b.ledger[t, : self._b.tab[t, LEDGER_LEN]]))

    def dealt(self) -> np.ndarray:
        """``int64[N, n_players]``: each table's dealt cards (card masks)."""
        return self._b.seats[:, :, DEALT].copy()

    def _step(self, actions: np.ndarray, active: np.ndarray, forced: bool, observe: bool) -> None:
        acts = np.asarray(actions)
        if acts.dtype.kind not in "iu" or acts.shape != (self.num_tables,):
            raise ValueError(f"actions must be integer action indices of shape ({self.num_tables},)")
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        moving = np.asarray(active)
        if moving.dtype != bool or moving.shape != (self.num_tables,):
            raise ValueError(f"active must be a bool array of shape ({self.num_tables},)")
        moving = np.ascontiguousarray(moving)
        bad = first_illegal(self.action_mask, acts, moving)
        if bad >= 0:
            raise IllegalMoveError(
                f"table {bad}: seat {int(self.current_seat[bad])} may not play action {int(acts[bad])} now "
                f"({'the hand is over' if self.n_legal[bad] == 0 else 'not a legal move'}); no table was changed"
            )
        step_tables(self._b, self._rp, self._answers, self._off, acts, moving, forced, observe, *self._buffers())

    def _outputs(self, tables: np.ndarray, observe: bool) -> None:
        outputs_at(self._b, self._rp, self._answers, self._off, tables, observe, *self._buffers())

    def _state(self) -> tuple[np.ndarray, ...]:
        """Every array a copy carries: the state that plays on and the outputs."""
        b = self._b
        return (b.tab, b.seats, b.ledger, b.rewards, b.rng, *self._buffers())

    def _buffers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.observation, self.action_mask, self.current_seat, self.n_legal

    def _tables(self, tables: np.ndarray) -> np.ndarray:
        arr = np.asarray(tables)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise ValueError(f"tables must be a 1-d array of table indices, got {arr.dtype} {arr.shape}")
        arr = np.ascontiguousarray(arr, dtype=np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= self.num_tables):
            raise ValueError(f"table indices must be in 0..{self.num_tables - 1}")
        return arr


def _check_deals(hands: np.ndarray) -> None:
    """Every hand ``CARDS_PER_HAND`` cards of the 52-card deck, no card dealt twice (vectorized)."""
    counts = np.bitwise_count(hands.astype(np.uint64))
    union = np.bitwise_or.reduce(hands, axis=1)
    if np.any(counts != CARDS_PER_HAND) or np.any(hands < 0) or np.any(hands > FULL_MASK):
        row = int(np.flatnonzero((counts != CARDS_PER_HAND).any(axis=1) | (hands < 0).any(axis=1))[0])
        raise ValueError(f"deal {row}: every hand must be {CARDS_PER_HAND} cards of the 52-card deck")
    overlap = np.bitwise_count(union.astype(np.uint64)) != counts.sum(axis=1)
    if overlap.any():
        raise ValueError(f"deal {int(np.flatnonzero(overlap)[0])}: a card is dealt twice")
