"""The batched trainer's config (``trainer: batched``): the shared masked-PPO fields and its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import OPPONENT_KINDS, MaskedPPOConfig, OpponentMix, refuse_panel_bots, require_field

BATCHED_OPPONENTS = ("self_play", "random", "heuristic")
"""The opponents the batched trainer can seat: networks, the random player and the compiled heuristic,
each evaluated in batch."""
DEVICES = ("cpu", "cuda", "auto")
CRITICS = ("observation", "oracle")


@dataclass(frozen=True)
class BatchedConfig(MaskedPPOConfig):
    """Our masked PPO on :class:`sam_env.VectorEnv` (:mod:`sam_env.training.batched`): ``num_tables`` tables,
    the learner in a share of the seats with one network shared by all of them, snapshots, fixed
    networks, the random player and the compiled heuristic in the others, all evaluated in batch.

    Every field of :class:`~sam_env.training.config.MaskedPPOConfig` and :class:`~sam_env.training.config.RunConfig`,
    with these meanings where the trainer gives them one: ``total_timesteps`` counts every move of
    any learner seat, forced ones included, though only moves with a choice are trained on;
    ``n_steps`` is table steps per rollout (every table plays n_steps decisions, the learner's and
    others'); ``opponents`` may weigh ``self_play``, ``random`` and ``heuristic`` only (default: half
    snapshots, half heuristic).

    Attributes:
        num_tables: tables of the VectorEnv, all stepped at once.
        learner_share: chance that a seat is the learner's for a hand (at least one seat per table
            always is); the other seats are drawn from ``opponents``.
        device: ``cpu``, ``cuda`` or ``auto`` (cuda when available) for the networks.
        critic: what the value estimates behind the advantages see. ``observation``: the seat's
            observation (SB3's critic). ``oracle``: the observation and the other seats' hands (a
            perfect-information critic, training only, as PerfectDou's): most of a hand's money is
            decided by the deal, and a critic that sees the deal takes that luck out of the
            advantages. The policy still sees only its observation, and the observation critic is
            trained beside it so that the saved policy stays a complete SB3 actor-critic.
        fixed_opponents: network bots (shipped names or checkpoint paths) that stay in the self-play
            pool for the whole run beside the snapshots, e.g. ``[ppo_v1]``.
        init_from: a network bot (shipped name or checkpoint path) whose weights the learner starts
            from; null: a fresh network. Its layers are the config's, or as many and each as wide or
            narrower: then it is widened first, playing exactly as before (``sam_env.training.widen``).
        eval_opponents: bots the policy meets (n−1 copies each) in the evaluations every
            ``eval_every`` steps; the first one's result is shown on the progress bar.
    """

    trainer: str = "batched"
    opponents: OpponentMix = field(default_factory=lambda: OpponentMix(self_play=0.5, greedy=0.0, heuristic=0.5))
    num_tables: int = 512
    learner_share: float = 1.0
    device: str = "cpu"
    critic: str = "observation"
    fixed_opponents: tuple[str, ...] = ()
    init_from: str | None = None
    eval_opponents: tuple[str, ...] = ("heuristic",)

    def check(self) -> None:
        super().check()
        self._require_int("num_tables", 1, "an int > 0")
        self._require_number("learner_share", lambda v: 0 <= v <= 1, "a number in [0, 1]")
        require_field("device", self.device, self.device in DEVICES, f"one of {list(DEVICES)}")
        require_field("critic", self.critic, self.critic in CRITICS, f"one of {list(CRITICS)}")
        weights = self.opponents.weights()
        batched_ok = not any(weights[k] for k in OPPONENT_KINDS if k not in BATCHED_OPPONENTS)
        require_field(
            "opponents", weights, batched_ok, f"with trainer: batched, weights for {list(BATCHED_OPPONENTS)} only"
        )
        fixed = self.fixed_opponents
        ok = isinstance(fixed, (list, tuple)) and all(isinstance(o, str) and o for o in fixed)
        require_field("fixed_opponents", fixed, ok, "a list of network bots (shipped names or checkpoint paths)")
        refuse_panel_bots("fixed_opponents", fixed)
        object.__setattr__(self, "fixed_opponents", tuple(fixed))
        init = self.init_from
        require_field(
            "init_from", init, init is None or (isinstance(init, str) and init != ""), "null or a network bot"
        )
        self._require_bots("eval_opponents", allow_empty=False)
