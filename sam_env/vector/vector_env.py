"""``VectorEnv``: thousands of tables of one ``RuleConfig`` stepped at once by compiled kernels.

Every table plays an endless sequence of hands. ``step(actions)`` takes one action per table for
its seat to act and returns a :class:`Batch`; a table whose hand ended is dealt its next hand at
once (the previous winner leads, docs/rules.md §6), so every table always has a seat to act. A deal
with an instant win is no exception: as in ``sam_env.env()``, the instant winner is to act with
one legal move, which reveals the win and ends the hand (``sam_env.core.REVEAL_INSTANT_WIN``).

The engine is proven equal to the reference :mod:`sam_env.core` (and to ``sam_env.env()``'s
observations, masks, rewards and ledgers) by the differential test in ``tests/vector`` and the
script ``experiments/differential_vector.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.cards import format_cards
from ..core.combos import COMBOS, N_COMBOS
from ..core.deal import DealError, parse_deal
from ..core.game import IllegalMoveError
from ..core.ledger import Transfer
from ..core.rules import RuleConfig
from ..encoding import ENCODING_VERSION, check_encoding_version
from . import batch as kernels
from .cache import announce_cold_cache, drop_stale_cache
from .encode import UNARY_BITS
from .layout import (
    DEALT,
    HAND,
    LEADER,
    LEDGER_LEN,
    N_FINISHED,
    NO_SEAT,
    TO_ACT,
    allocate,
    answers_of,
    observation_offsets,
    rule_params,
    state_offsets,
)
from .results import FinishedHand, finished_hands, transfers

RESET_OPTIONS = ("hands", "leader")
drop_stale_cache(kernels.step_serial)


@dataclass
class Batch:
    """What ``reset`` and ``step`` return. **The arrays are reused**: the next call overwrites them
    in place, so copy what you keep (``batch.observation.copy()``).

    Attributes:
        observation: ``float32[N, obs_dim]``, the acting seat's observation (``sam_env.env()``'s).
        action_mask: ``bool[N, 201]``, its legal actions.
        current_seat: ``int64[N]``, the seat to act at each table.
        rewards: ``float32[N, n_players]``, money (in X) credited by this call, per absolute seat:
            chop money of off-turn seats included, and the settlement of a hand that ended.
        terminated: ``bool[N]``, a hand ended at this table during this call (its results are in
            :meth:`VectorEnv.results`); the outputs above already belong to the next hand.
    """

    observation: np.ndarray
    action_mask: np.ndarray
    current_seat: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray


class VectorEnv:
    """``num_tables`` tables of Sâm Lốc under one ``RuleConfig``, compiled with numba.

    Args:
        num_tables: how many tables to step at once.
        rules: the rules of every table (default ``RuleConfig()``).
        seed: seeds the tables' deals when ``reset()`` is first called without a seed.
        parallel: spread the tables of each step over numba's threads (``NUMBA_NUM_THREADS``).
        encoding_version: the observation encoding (:data:`sam_env.encoding.ENCODING_VERSIONS`), as
            ``sam_env.env(encoding_version=...)``'s; version 2 adds the hand's history.

    Random deals come from one splitmix64 stream per table, seeded from ``numpy.random.SeedSequence(seed)``:
    reproducible by seed, and independent of the batch size and thread count; they are *not* the
    deals ``sam_env.env()`` would draw with the same seed. The kernels compile on first use (or load
    from numba's on-disk cache), never at ``import sam_env``.
    """

    def __init__(
        self,
        num_tables: int,
        rules: RuleConfig | None = None,
        seed: int | None = None,
        parallel: bool = False,
        encoding_version: int = ENCODING_VERSION,
    ) -> None:
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive int, got {num_tables!r}")
        rules = RuleConfig() if rules is None else rules
        if not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a sam_env.RuleConfig, got {type(rules).__name__}: {rules!r}")
        self.num_tables = int(num_tables)
        self.rules = rules
        self.n_players = rules.n_players
        if not isinstance(parallel, bool):
            raise TypeError(f"parallel must be True or False, got {parallel!r}")
        self.parallel = parallel
        self._seed = _checked_seed(seed)
        announce_cold_cache(kernels.step_serial, "sam_env.VectorEnv")
        self._rp = rule_params(rules)
        self._answers = answers_of(rules)
        self.encoding_version = check_encoding_version(encoding_version)
        self._obs_off = observation_offsets(self.n_players, self.encoding_version)
        self._state_off = state_offsets(self.n_players)
        self.observation_size = int(self._obs_off[-1])
        self.state_size = int(self._state_off[-1])
        self.hidden_size = (self.n_players - 1) * UNARY_BITS
        self.action_count = N_COMBOS
        self._b = allocate(self.num_tables, self.n_players)
        n = self.num_tables
        self._batch = Batch(
            observation=np.zeros((n, self.observation_size), dtype=np.float32),
            action_mask=np.zeros((n, N_COMBOS), dtype=bool),
            current_seat=np.zeros(n, dtype=np.int64),
            rewards=self._b.rewards,
            terminated=np.zeros(n, dtype=bool),
        )
        self._has_reset = False
        self._all_tables = np.ones(n, dtype=bool)
        self._mask = np.zeros((n, N_COMBOS), dtype=bool)

    # ------------------------------------------------------------------ the contract

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> Batch:
        """Deal a new hand at every table.

        ``seed`` (or, on the first reset, the constructor's): new tables, whose first hand follows
        ``first_leader``. Without it, the next hand of each table, led by the previous winner.
        ``options={"hands": [...], "leader": [...]}``: per table, a deal (one list of 10 cards per
        seat in docs/rules.md notation, or card masks; ``None`` for a random deal) and a would-be leader
        (``None`` for the rule's). No hand ends here: at a deal with an instant win the winner is to
        act, with one legal move.
        """
        seed = _checked_seed(seed)
        explicit, has_explicit, leaders = self._parse_options(options)
        fresh = seed is not None or not self._has_reset
        if fresh:
            entropy = seed if seed is not None else self._seed
            self._b.rng[:] = np.random.SeedSequence(entropy).generate_state(self.num_tables, dtype=np.uint64)
        kernels.reset_tables(self._b, self._rp, fresh, explicit, has_explicit, leaders)
        self._has_reset = True
        self._batch.terminated[:] = False
        kernels.outputs(self._b, self._rp, self._answers, self._obs_off, *self._outputs())
        np.copyto(self._batch.action_mask, self._mask)
        return self._batch

    def step(self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None) -> Batch:
        """One action per table for its seat to act. The whole batch is checked first: an illegal
        action raises :class:`~sam_env.core.IllegalMoveError` and no table changes.

        ``active`` (``bool[N]``, optional): only these tables move; the others keep their hand and
        outputs, with zero rewards (their entries of ``actions`` are ignored). The single-learner
        adapters use it to let the opponents play at the tables where the learner is not to act.
        """
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        moving = self._check_active(active)
        acts = self._check_actions(actions)
        bad = kernels.first_illegal(self._mask, acts, moving)
        if bad >= 0:
            self._reject(bad, int(acts[bad]))
        step = kernels.step_parallel if self.parallel else kernels.step_serial
        step(self._b, self._rp, self._answers, self._obs_off, acts, moving, *self._outputs())
        np.greater(self._b.tab[:, N_FINISHED], 0, out=self._batch.terminated)
        np.copyto(self._batch.action_mask, self._mask)
        return self._batch

    @property
    def batch(self) -> Batch:
        """The outputs of the last ``reset``/``step`` (the reused buffers themselves)."""
        return self._batch

    # ------------------------------------------------------------------ on demand

    def observe(self, seats: int | np.ndarray | Sequence[int], out: np.ndarray | None = None) -> np.ndarray:
        """``float32[N, obs_dim]``: the observation of ``seats`` (one seat for all tables, or one per
        table) — for centralized critics and opponents. Written into ``out`` when given."""
        seat_arr = self._checked_seats(seats)
        out = self._out_array(out, (self.num_tables, self.observation_size), "out")
        kernels.observe_seats(self._b, self._rp, self._obs_off, seat_arr, out)
        return out

    def hidden_hands(self, seats: int | np.ndarray | Sequence[int], out: np.ndarray | None = None) -> np.ndarray:
        """``float32[N, (n_players - 1) * 52]``: the other seats' current hands as seen from ``seats`` (one
        seat for all tables, or one per table), rank counts in unary as in the observation's ``hand``
        block, rows in turn order after the seat. Perfect information, for oracle critics
        (``sam_env.training.batched``): with the seat's observation it is everything the table holds."""
        seat_arr = self._checked_seats(seats)
        out = self._out_array(out, (self.num_tables, self.hidden_size), "out")
        kernels.hidden_hands(self._b, self._rp, seat_arr, out)
        return out

    def state(self, out: np.ndarray | None = None) -> np.ndarray:
        """``float32[N, state_dim]``: the perfect-information state (``sam_env.env().state()``'s)."""
        out = self._out_array(out, (self.num_tables, self.state_size), "out")
        kernels.states(self._b, self._rp, self._state_off, out)
        return out

    def results(self) -> dict[int, list[FinishedHand]]:
        """The hands that ended during the last ``step``, per table: ``{table: [hand]}``, one per
        terminated table (a ``reset`` ends none). Each :class:`~.results.FinishedHand` has the
        reference's :class:`~sam_env.core.HandResult` (``.result``: reason, winner, ledger of
        (payer, payee, amount, reason) transfers, net, …), the deal and the would-be leader.
        """
        out: dict[int, list[FinishedHand]] = {}
        for t in np.flatnonzero(self._batch.terminated).tolist():
            out[t] = finished_hands(self._b, t, self.n_players)
        return out

    def ledger(self, table: int) -> list[Transfer]:
        """The transfers of the current hand of ``table`` so far (chop money during play)."""
        t = self._table_index(table)
        return list(transfers(self._b.ledger[t, : self._b.tab[t, LEDGER_LEN]]))

    def hands(self) -> np.ndarray:
        """``int64[N, n_players]``: each seat's cards now, as 52-bit card masks (bit ``rank * 4 + suit``)."""
        return self._b.seats[:, :, HAND].copy()

    def leaders(self) -> np.ndarray:
        """``int64[N]``: each table's would-be leader of the current hand (asked first about Sâm, §6)."""
        return self._b.tab[:, LEADER].copy()

    def dealt(self) -> np.ndarray:
        """``int64[N, n_players]``: the cards dealt to each seat for the current hand (card masks)."""
        return self._b.seats[:, :, DEALT].copy()

    # ------------------------------------------------------------------ helpers

    def _outputs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Where the kernels write: the masks go to the engine's own copy, which checks the next
        actions (the caller may edit ``batch.action_mask``), and are then copied out."""
        return self._batch.observation, self._mask, self._batch.current_seat

    def _check_active(self, active: np.ndarray | None) -> np.ndarray:
        if active is None:
            return self._all_tables
        arr = np.asarray(active)
        if arr.dtype != bool or arr.shape != (self.num_tables,):
            raise ValueError(f"active must be a bool array of shape ({self.num_tables},), got {arr.dtype} {arr.shape}")
        return np.ascontiguousarray(arr)

    def _check_actions(self, actions: np.ndarray | Sequence[int]) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers (action indices), got dtype {arr.dtype}")
        if arr.shape != (self.num_tables,):
            raise ValueError(f"actions must have shape ({self.num_tables},): one per table, got shape {arr.shape}")
        return np.ascontiguousarray(arr, dtype=np.int64)

    def _reject(self, t: int, action: int) -> None:
        seat = int(self._b.tab[t, TO_ACT])
        if not 0 <= action < N_COMBOS:
            raise IllegalMoveError(
                f"table {t}: seat {seat}: action {action} is not an action index in 0..{N_COMBOS - 1}; "
                f"legal moves: {self._legal_names(t)}; no table was changed"
            )
        held = format_cards(int(self._b.seats[t, seat, HAND]))
        raise IllegalMoveError(
            f"table {t}: seat {seat} (holding {held}) may not play {COMBOS[action].name} now; "
            f"legal moves: {self._legal_names(t)}; no table was changed"
        )

    def _legal_names(self, t: int) -> str:
        return ", ".join(COMBOS[i].name for i in np.flatnonzero(self._mask[t]))

    def _table_index(self, table: int) -> int:
        if isinstance(table, bool) or not isinstance(table, (int, np.integer)) or not 0 <= table < self.num_tables:
            raise ValueError(f"table must be an int in 0..{self.num_tables - 1}, got {table!r}")
        return int(table)

    def _checked_seats(self, seats: int | np.ndarray | Sequence[int]) -> np.ndarray:
        """``int64[N]``: one seat or one per table, checked."""
        seat_arr = np.asarray(seats)
        if seat_arr.shape not in ((), (self.num_tables,)):
            raise ValueError(f"seats must be one seat or one per table ({self.num_tables}), got shape {seat_arr.shape}")
        seat_arr = np.broadcast_to(seat_arr, (self.num_tables,))
        if seat_arr.dtype.kind not in "iu" or np.any((seat_arr < 0) | (seat_arr >= self.n_players)):
            raise ValueError(f"seats must be seat numbers in 0..{self.n_players - 1}, got {seats!r}")
        return np.ascontiguousarray(seat_arr, np.int64)

    def _out_array(self, out: np.ndarray | None, shape: tuple[int, int], name: str) -> np.ndarray:
        if out is None:
            return np.zeros(shape, dtype=np.float32)
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.float32:
            raise ValueError(f"{name} must be a float32 array of shape {shape}")
        return out

    def _parse_options(self, options: Mapping[str, Any] | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-table explicit deals (card masks), which tables have one, and forced leaders."""
        n_tables, n = self.num_tables, self.n_players
        explicit = np.zeros((n_tables, n), dtype=np.int64)
        has_explicit = np.zeros(n_tables, dtype=bool)
        leaders = np.full(n_tables, NO_SEAT, dtype=np.int64)
        if options is None:
            return explicit, has_explicit, leaders
        if not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict with keys {list(RESET_OPTIONS)}, got {options!r}")
        unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {unknown}; expected some of {list(RESET_OPTIONS)}")
        deals = self._per_table(options.get("hands"), "hands")
        for t, deal in enumerate(deals):
            if deal is not None:
                try:
                    explicit[t] = parse_deal(self.rules, deal)
                except ValueError as err:
                    raise type(err)(f"table {t}: {err}") from None
                has_explicit[t] = True
        for t, leader in enumerate(self._per_table(options.get("leader"), "leader")):
            if leader is None:
                continue
            if isinstance(leader, bool) or not isinstance(leader, (int, np.integer)) or not 0 <= leader < n:
                raise DealError(f"table {t}: leader must be None or a seat in 0..{n - 1}, got {leader!r}")
            leaders[t] = int(leader)
        return explicit, has_explicit, leaders

    def _per_table(self, values: Any, name: str) -> list[Any]:
        if values is None:
            return [None] * self.num_tables
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence | np.ndarray):
            raise ValueError(f"options[{name!r}] must be a list with one entry per table, got {values!r}")
        if len(values) != self.num_tables:
            raise ValueError(f"options[{name!r}] must have one entry per table ({self.num_tables}), got {len(values)}")
        return list(values)


def _checked_seed(seed: object) -> int | None:
    """A seed for ``numpy.random.SeedSequence``, checked here so that a bad one is named as a seed."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative int, got {seed!r}")
    return None if seed is None else int(seed)
