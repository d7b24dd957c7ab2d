"""The Deep Monte-Carlo trainer's config (``trainer: dmc``): the shared fields and its own."""

from __future__ import annotations

from dataclasses import dataclass

from sam_env.agents.networks.qnet.checkpoint import QArch

from ..config import EvalRunConfig, require_field
from ..tables import TablesFields

DEVICES = ("cpu", "cuda", "auto")


@dataclass(frozen=True)
class DMCConfig(TablesFields, EvalRunConfig):
    """Deep Monte-Carlo as DouZero trains it (:mod:`sam_env.training.dmc`): one Q-network scores every legal
    move from the observation and the move's features; every seat of ``num_tables`` tables plays it
    epsilon-greedily; each decision's target is the money its seat received from that decision to the end
    of the hand; the loss is the squared error.

    Fields of :class:`~sam_env.training.config.EvalRunConfig` with a meaning of their own here:
    ``total_timesteps`` counts every move at every table (every seat is the learner's), forced ones
    included, though only moves with a choice are trained on, and ``eval_every`` and ``checkpoint_every``
    count them too; ``pi_layers`` and ``activation`` are the Q-network's hidden layers and activation
    (``vf_layers`` has no use: there is no critic); ``reward_scale`` scales the money targets.

    Attributes:
        num_tables: tables of the VectorEnv, all stepped at once.
        n_steps: table steps between updates; decisions whose hand has not ended by then wait for it
            (their target is not known before) and are trained on after a later collection.
        epsilon: chance that a decision is a uniformly random legal move instead of the greedy one
            (DouZero's ``exp_epsilon`` is 0.01, for runs a thousand times longer than this budget's).
        learning_rate: Adam step size.
        batch_size: decisions per gradient step.
        n_epochs: passes over each collection's finished decisions (DouZero uses each sample once).
        max_grad_norm: gradient clipping (DouZero's 40).
        init_from: a Q-network bot (a shipped name such as ``dmc``, or a checkpoint path of format
            ``sam-env-qnet``) whose weights a new run starts from, to train a shipped network further
            without its optimizer state (Adam's moments start afresh; ``--resume`` continues a run of
            one's own with them). Its layers and table must be the config's; its lineage, and it, are
            recorded in the new network's metadata (:mod:`sam_env.training.lineage`).
        overlap_update: fit the decisions already finished on a second thread while the tables play the next
            ``n_steps``, as DouZero's actors play on while its learner updates. The tables then play a copy of
            the network as it was before that update (one update behind; the copy takes the new weights when
            both are done), so with ``torch_threads: 1`` the update's passes run on a second core beside the
            tables' (its speed: ``benchmarks/bench_dmc.py``). The order of every draw is fixed, so a seed still
            fixes the run. A checkpoint then holds the network fitted to the hands that ended before the last
            collection; the decisions of those that ended during it wait for the next update. Off, the update
            follows the collection on one thread (the records made before this option ran so, and repeat only
            so). With ``tables: ray`` the same holds across processes: the actors play the next collection while
            the learner fits the last one.
        device: where the learner's network is fitted: ``cpu`` (the default, also of the recipes), ``cuda`` or
            ``auto`` (cuda when there is one: ``--set device=auto``). The tables always play on the CPU: the network
            itself when it is there and the update does not overlap, else a copy given the new weights after each
            update (with ``tables: ray``, each actor's).

    ``tables``, ``table_workers`` and ``num_cpus`` (:class:`~sam_env.training.tables.TablesFields`): with
    ``tables: ray`` each of ``table_workers`` Ray actors plays ``num_tables`` tables and sends the decisions whose
    hands ended, with their targets, to the learner (:mod:`.ray_tables`).
    """

    trainer: str = "dmc"
    activation: str = "relu"
    pi_layers: tuple[int, ...] = (256, 256)
    num_tables: int = 1024
    n_steps: int = 16
    epsilon: float = 0.05
    learning_rate: float = 3e-4
    batch_size: int = 2048
    n_epochs: int = 1
    max_grad_norm: float = 40.0
    eval_every: int = 200_000
    checkpoint_every: int = 500_000
    init_from: str | None = None
    overlap_update: bool = False
    device: str = "cpu"

    def check(self) -> None:
        super().check()
        self.check_tables()
        require_field("device", self.device, self.device in DEVICES, f"one of {list(DEVICES)}")
        for name in ("num_tables", "n_steps", "batch_size", "n_epochs"):
            self._require_int(name, 1, "an int > 0")
        self._require_number("epsilon", lambda v: 0 <= v <= 1, "a number in [0, 1]")
        for name in ("learning_rate", "max_grad_norm"):
            self._require_number(name, lambda v: v > 0, "a number > 0")
        init = self.init_from
        ok = init is None or (isinstance(init, str) and init != "")
        require_field("init_from", init, ok, "null or a Q-network bot (a shipped name such as dmc, or a path)")
        overlap = self.overlap_update
        require_field("overlap_update", overlap, isinstance(overlap, bool), "true or false")

    @property
    def q_arch(self) -> QArch:
        return QArch(kind="dmc", layers=self.pi_layers, activation=self.activation)

    @property
    def policy_label(self) -> str:
        return f"dmc[{self.name}]"
