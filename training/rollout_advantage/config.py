"""The rollout-advantage trainer's config (``trainer: rollout_advantage``): the shared fields and its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..common.seating import SEATING_KINDS
from ..config import (
    OPPONENT_KINDS,
    ConfigError,
    EvalRunConfig,
    OpponentMix,
    refuse_panel_bots,
    require_field,
)
from .update import IMPROVEMENTS


@dataclass(frozen=True)
class RolloutAdvantageConfig(EvalRunConfig):
    """Rollout advantages on the real deal (:mod:`sam_env.training.rollout_advantage`): at sampled decisions of
    the learner, every candidate move is played out on copies of the table, hidden hands included, by the
    table's real occupants under common random numbers; the policy learns from the differences.

    Fields of :class:`~sam_env.training.config.EvalRunConfig` with a meaning of their own here:
    ``total_timesteps`` counts **labelled decisions** (each worth one rollout per candidate move), and every
    ``*_every`` field counts them too; ``pi_layers``, ``vf_layers`` and ``activation`` are the saved
    actor-critic's, as for the PPO trainers.

    Attributes:
        num_tables: real tables, stepped together (the learner's play that the labelled decisions come from).
        rollout_tables: table copies played at once (about 6 KB each); a decision's candidates are never split.
        label_share: chance that a learner decision with a choice is labelled. 1: every one (the hands' later
            decisions are then labelled too, which is cheap: a copy near the end of a hand is short).
        max_moves: candidate moves rolled out per labelled decision: every legal move when there are at most
            this many, else the learner's most probable ones (the advantage head estimates the others).
        labels_per_iteration: labelled decisions between updates.
        learning_rate: Adam step size.
        n_epochs: passes over each iteration's labels.
        batch_size: labelled decisions per gradient step.
        improvement: ``softmax`` (cross-entropy to ``π_old · exp(A / temperature)``) or ``all_actions`` (the
            all-actions policy gradient ``Σ_a π(a) A(a)``).
        temperature: the softmax target's temperature, in X (``improvement: softmax``): an advantage of one
            temperature multiplies a move's odds by e.
        kl_coef: weight of ``KL(π_old ‖ π)``, the penalty that keeps an update near the network that played.
        ent_coef: entropy bonus.
        vf_coef: weight of the critic's loss (the saved value head, fitted to the labels' mean under ``π_old``).
        adv_coef: weight of the advantage head's loss.
        adv_layers: hidden layer sizes of the advantage head (training only).
        max_grad_norm: gradient clipping.
        learner_share: chance that a seat of a real table is the learner's for a hand (at least one per table
            always is); the others are drawn from ``opponents``.
        opponents: weights of ``self_play`` (a snapshot of the learner from the pool), ``random`` and
            ``heuristic`` (the compiled heuristic) for the other seats; the rollouts keep each seat's occupant.
        fixed_opponents: network bots (shipped names or checkpoint paths) that stay in the pool for the whole run.
        snapshot_every: labelled decisions between snapshots of the learner added to the pool.
        pool_size: snapshots kept (the oldest is dropped).
        snapshot_deterministic: frozen networks play their most probable move (True) or sample (False).
        init_from: a network bot (shipped name or checkpoint path) the learner starts from (widened first if
            narrower, ``sam_env.training.widen``); null: a fresh network.
        chunk_minutes: stop after the first iteration past this many minutes of training (a checkpoint and
            ``final/`` are written as at the end, and ``train.py --resume`` goes on from them); null: run
            to ``total_timesteps``. For chaining runs longer than one sitting (docs/rollout_training.md).
    """

    trainer: str = "rollout_advantage"
    num_tables: int = 256
    rollout_tables: int = 4096
    label_share: float = 0.5
    max_moves: int = 8
    labels_per_iteration: int = 4096
    learning_rate: float = 1e-4
    n_epochs: int = 4
    batch_size: int = 512
    improvement: str = "softmax"
    temperature: float = 1.0
    kl_coef: float = 1.0
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    adv_coef: float = 0.5
    adv_layers: tuple[int, ...] = (256, 256)
    max_grad_norm: float = 0.5
    learner_share: float = 0.5
    opponents: OpponentMix = field(default_factory=lambda: OpponentMix(self_play=0.5, greedy=0.0, heuristic=0.5))
    fixed_opponents: tuple[str, ...] = ()
    snapshot_every: int = 50_000
    pool_size: int = 10
    snapshot_deterministic: bool = False
    init_from: str | None = None
    chunk_minutes: float | None = None

    def check(self) -> None:
        super().check()
        for name in (
            "num_tables",
            "rollout_tables",
            "max_moves",
            "labels_per_iteration",
            "n_epochs",
            "batch_size",
            "pool_size",
            "snapshot_every",
        ):
            self._require_int(name, 1, "an int > 0")
        if self.rollout_tables < self.max_moves:
            raise ConfigError(
                f"config field rollout_tables = {self.rollout_tables} is not allowed; expected at least "
                f"max_moves = {self.max_moves} (every candidate move of a decision is played in one batch)"
            )
        for name in ("label_share", "learner_share"):
            self._require_number(name, lambda v: 0 <= v <= 1, "a number in [0, 1]")
        self._require_number("label_share", lambda v: v > 0, "a number in (0, 1]")
        for name in ("learning_rate", "temperature", "max_grad_norm"):
            self._require_number(name, lambda v: v > 0, "a number > 0")
        for name in ("kl_coef", "ent_coef", "vf_coef", "adv_coef"):
            self._require_number(name, lambda v: v >= 0, "a number >= 0")
        require_field("improvement", self.improvement, self.improvement in IMPROVEMENTS, f"one of {list(IMPROVEMENTS)}")
        self._require_layers("adv_layers")
        require_field("opponents", self.opponents, isinstance(self.opponents, OpponentMix), "a mapping of weights")
        weights = self.opponents.weights()
        ok = not any(weights[k] for k in OPPONENT_KINDS if k not in SEATING_KINDS)
        require_field("opponents", weights, ok, f"with trainer: {self.trainer}, weights for {list(SEATING_KINDS)}")
        fixed = self.fixed_opponents
        ok = isinstance(fixed, (list, tuple)) and all(isinstance(o, str) and o for o in fixed)
        require_field("fixed_opponents", fixed, ok, "a list of network bots (shipped names or checkpoint paths)")
        refuse_panel_bots("fixed_opponents", fixed)
        object.__setattr__(self, "fixed_opponents", tuple(fixed))
        value = self.snapshot_deterministic
        require_field("snapshot_deterministic", value, isinstance(value, bool), "true or false")
        init = self.init_from
        ok = init is None or (isinstance(init, str) and init != "")
        require_field("init_from", init, ok, "null or a network bot")
        minutes = self.chunk_minutes
        ok = minutes is None or (isinstance(minutes, (int, float)) and not isinstance(minutes, bool) and minutes > 0)
        require_field("chunk_minutes", minutes, ok, "null or a number of minutes > 0")

    @property
    def policy_label(self) -> str:
        return f"rollout[{self.name}]"
