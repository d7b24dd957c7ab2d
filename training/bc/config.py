"""The behaviour-cloning trainer's config (``trainer: bc``): the shared run fields and its own."""

from __future__ import annotations

from dataclasses import dataclass

from sam_env.agents.networks.policy.checkpoint import PolicyArch

from ..config import EvalRunConfig, require_field


@dataclass(frozen=True)
class BCConfig(EvalRunConfig):
    """Behaviour cloning (:mod:`sam_env.training.bc`): a policy network learns a bot's moves from its hand records.

    The data are decision datasets (``python -m sam_env.evaluation.dataset RECORDS --bots NAME --out FILE.npz``):
    one row per decision, the seat's observation, its legal moves and the move the bot played. The network's
    masked softmax over the legal moves is fitted by cross-entropy to the move played (``epochs`` passes of Adam
    over minibatches), and the network is saved as a policy checkpoint (``policy.*``, format ``sam-env-policy``)
    that ``load_bot`` plays as a :class:`~sam_env.agents.networks.policy.bot.PPOBot` (its most probable legal
    move). A share of the *hands* is held out for validation (every decision of a hand on one side, so that no
    hand is both learned and judged); its loss and accuracy — the share of decisions whose most probable move is
    the one recorded — are logged after every epoch.

    Fields of :class:`~sam_env.training.config.EvalRunConfig` with a meaning of their own here: ``total_timesteps``
    has no use (a run is ``epochs`` passes over the data; the steps it reports, and the logs' x-axis, are the
    decisions trained on, rows × passes); ``eval_every`` and ``checkpoint_every`` count **epochs** (no evaluation
    before the first); ``rules`` must be the datasets' (their table size fixes the observation), and the observation
    encoding version is the datasets' own (all files must share one; the checkpoint records it). ``reward_scale``
    scales the money the critic learns with ``fit_critic``.

    Attributes:
        data: the dataset files (``.npz``) to learn from, at least one. A relative path is read from the folder
            ``train.py`` runs in (as ``run_dir`` is), not from the config file's folder, so that ``--set
            data=[...]`` and a config file mean the same files; the checkpoint records each file's absolute path
            and SHA-256. Every file must be of the config's rules and of one observation encoding.
        keep_forced: also learn from decisions with one legal move. Off by default: one legal move teaches
            nothing (the cross-entropy of a forced move is 0 whatever the network) and only dilutes the
            validation accuracy.
        drop_duplicate_hands: keep one copy of hands whose decisions are identical (a deterministic bot's mirror
            match plays each deal once per seat rotation, four identical hands): copies would weigh those hands
            more and, split apart, put the same hand on both sides of the validation split.
        val_share: share of the hands held out for validation (drawn by ``seed``); 0: none (nothing is logged
            for validation).
        learning_rate: Adam's step size at the start.
        learning_rate_end: if set, the step size falls linearly to this value at the last minibatch; null:
            constant.
        epochs: passes over the training rows.
        batch_size: decisions per minibatch.
        max_grad_norm: gradient clipping (of the actor and of the critic apart: they share no layer).
        move_head: units of the move-scoring head beside the logits (``PolicyArch.move_head``; 0: none): each
            legal move's features (what it plays, what it leaves in hand) are scored, so moves that share cards
            share what is learned about them.
        fit_critic: also fit the value head to the money the seat received from the decision to the end of the
            hand (the dataset's ``money_after``, × ``reward_scale``), so that a PPO run can start from the clone
            (``init_from``) with a critic that knows the money. Off by default: greedy play never reads it, and it
            doubles the work; without it the value head keeps its initial weights.
    """

    trainer: str = "bc"
    data: tuple[str, ...] = ()
    keep_forced: bool = False
    drop_duplicate_hands: bool = True
    val_share: float = 0.1
    learning_rate: float = 1e-3
    learning_rate_end: float | None = None
    epochs: int = 10
    batch_size: int = 512
    max_grad_norm: float = 1.0
    move_head: int = 0
    fit_critic: bool = False
    activation: str = "relu"
    eval_every: int = 0
    eval_deals: int = 200
    checkpoint_every: int = 0

    def check(self) -> None:
        super().check()
        data = self.data
        ok = isinstance(data, (list, tuple)) and all(isinstance(p, str) and p.strip() for p in data)
        require_field("data", data, ok, "a list of dataset files (.npz of python -m sam_env.evaluation.dataset)")
        object.__setattr__(self, "data", tuple(data))
        for name in ("keep_forced", "drop_duplicate_hands", "fit_critic"):
            value = getattr(self, name)
            require_field(name, value, isinstance(value, bool), "true or false")
        self._require_number("val_share", lambda v: 0 <= v < 1, "a number in [0, 1) (0: no validation)")
        self._require_number("learning_rate", lambda v: v > 0, "a number > 0")
        end = self.learning_rate_end
        ok = end is None or (isinstance(end, (int, float)) and not isinstance(end, bool) and end > 0)
        require_field("learning_rate_end", end, ok, "null or a number > 0")
        for name in ("epochs", "batch_size"):
            self._require_int(name, 1, "an int > 0")
        self._require_number("max_grad_norm", lambda v: v > 0, "a number > 0")
        self._require_int("move_head", 0, "an int >= 0 (units of the move-scoring head; 0: none)")

    @property
    def arch(self) -> PolicyArch:
        return PolicyArch(self.pi_layers, self.vf_layers, self.activation, self.move_head)

    @property
    def policy_label(self) -> str:
        return f"bc[{self.name}]"
