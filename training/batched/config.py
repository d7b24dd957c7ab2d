"""The batched trainer's config (``trainer: batched``): the shared masked-PPO fields and its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from sam_env.agents.networks.policy.checkpoint import PolicyArch
from sam_env.core.fields import is_int
from sam_env.encoding import ENCODING_VERSIONS
from sam_env.evaluation.suites import TRAINING_EVAL_OPPONENTS

from ..common.seating import SEATING_KINDS
from ..config import OPPONENT_KINDS, MaskedPPOConfig, OpponentMix, refuse_panel_bots, require_field
from ..tables import TablesFields

DEVICES = ("cpu", "cuda", "auto")
CRITICS = ("observation", "oracle")
SAMPLINGS = ("mix", "pfsp")
PFSP_WEIGHTINGS = ("hard", "variance", "uniform")


@dataclass(frozen=True)
class BatchedConfig(TablesFields, MaskedPPOConfig):
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
        encoding_version: the observation encoding the learner reads (``sam_env.encoding.ENCODING_VERSIONS``;
            2 adds each opponent's declined plays). Frozen networks of an earlier version read its prefix;
            ``init_from`` one of an earlier version starts with the new inputs weighted zero.
        move_head: units of the move-scoring head beside the logits (``PolicyArch.move_head``; 0: none):
            each legal move's features (what it plays and leaves in hand) are scored, as DouZero scores
            its actions. A network starting from ``init_from`` without one gets it scoring 0.
        opponent_sampling: how the seats that are not the learner's are drawn for each hand. ``mix``: by the
            ``opponents`` weights, a snapshot uniformly from the pool. ``pfsp``: prioritized fictitious
            self-play (AlphaStar's league): every opponent in the pool — each snapshot and fixed network,
            the heuristic and its ``heuristic_variants``, greedy and random, those whose kind has a weight
            in ``opponents`` — is drawn with its kind's weight (shared by its members) times
            ``f(p)``, where ``p`` is the learner's recent rate of ending a hand with more money than it.
        pfsp_weighting: ``f`` of ``pfsp``: ``hard`` (1 − p)², the opponents the learner does not beat yet;
            ``variance`` p(1 − p), the ones it beats about half the time; ``uniform`` 1 (the weights alone).
        pfsp_memory: how many of its latest results against an opponent its ``p`` weighs (an exponential
            average: the learner changes, and so does what it beats).
        heuristic_variants: with ``pfsp``, this many heuristics with thresholds drawn at random
            (``HeuristicParams.random``, seeded by ``seed``) join the shipped one; their ranges are set by
            what each threshold means, never tuned against the held-out panel.
    """

    trainer: str = "batched"
    opponents: OpponentMix = field(default_factory=lambda: OpponentMix(self_play=0.5, greedy=0.0, heuristic=0.5))
    num_tables: int = 512
    learner_share: float = 1.0
    device: str = "cpu"
    critic: str = "observation"
    fixed_opponents: tuple[str, ...] = ()
    init_from: str | None = None
    eval_opponents: tuple[str, ...] = TRAINING_EVAL_OPPONENTS
    encoding_version: int = 1
    move_head: int = 0
    opponent_sampling: str = "mix"
    pfsp_weighting: str = "hard"
    pfsp_memory: int = 2000
    heuristic_variants: int = 0

    @property
    def arch(self) -> PolicyArch:
        return PolicyArch(self.pi_layers, self.vf_layers, self.activation, self.move_head)

    def check(self) -> None:
        super().check()
        self.check_tables()
        self._require_int("num_tables", 1, "an int > 0")
        self._require_number("learner_share", lambda v: 0 <= v <= 1, "a number in [0, 1]")
        require_field("device", self.device, self.device in DEVICES, f"one of {list(DEVICES)}")
        require_field("critic", self.critic, self.critic in CRITICS, f"one of {list(CRITICS)}")
        version = self.encoding_version
        ok = is_int(version) and version in ENCODING_VERSIONS
        require_field("encoding_version", version, ok, f"one of {list(ENCODING_VERSIONS)}")
        self._require_int("move_head", 0, "an int >= 0 (units of the move-scoring head; 0: none)")
        sampling = self.opponent_sampling
        require_field("opponent_sampling", sampling, sampling in SAMPLINGS, f"one of {list(SAMPLINGS)}")
        weighting = self.pfsp_weighting
        require_field("pfsp_weighting", weighting, weighting in PFSP_WEIGHTINGS, f"one of {list(PFSP_WEIGHTINGS)}")
        self._require_int("pfsp_memory", 1, "an int > 0 (results)")
        self._require_int("heuristic_variants", 0, "an int >= 0")
        pfsp = sampling == "pfsp"
        require_field(
            "heuristic_variants", self.heuristic_variants, pfsp or not self.heuristic_variants, "0 unless pfsp"
        )
        weights = self.opponents.weights()
        kinds = (*SEATING_KINDS, "greedy") if pfsp else SEATING_KINDS
        batched_ok = not any(weights[k] for k in OPPONENT_KINDS if k not in kinds)
        where = "" if pfsp else " (greedy too with opponent_sampling: pfsp)"
        require_field("opponents", weights, batched_ok, f"with trainer: batched, weights for {list(kinds)} only{where}")
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
