"""The expert-iteration trainer's config (``trainer: expert``): the shared run fields and its own."""

from __future__ import annotations

from dataclasses import dataclass

from ..config import ConfigError, EvalRunConfig, refuse_panel_bots, require_field

PLAYS = ("search", "network")
MAX_RULE_BOT_SHARE = 0.25
"""The cap on the rule bots' seats in a self-play recipe: at most a quarter, so that the network learns the game
mostly from itself rather than the habits of one rule bot."""


@dataclass(frozen=True)
class ExpertConfig(EvalRunConfig):
    """Expert iteration (:mod:`sam_env.training.expert`): a determinized search over the network is the teacher,
    the network is distilled on its choices and values, and the new network is the next search's.

    One **iteration**: (1) *generate* — ``num_tables`` tables of :class:`sam_env.VectorEnv` play with
    the network in every seat but a drawn ``rule_bot_share`` of them (the compiled heuristic); at every
    step the network seats' decisions with more than one legal move are searched in one batch
    (:class:`sam_env.agents.search.engine.BatchedSearch`, ``determinizations`` deals × ``candidates`` moves,
    the network in every rollout seat) until ``decisions_per_iteration`` are searched; then every
    hand in progress is played to its end, its decisions searched too, so the data are whole hands
    (stopping mid-hand would leave the late decisions of hands out); (2) *distill* — ``n_epochs``
    passes of Adam over the targets of the last ``buffer_iterations`` iterations: cross-entropy of
    the masked policy to the search's move (or to ``softmax(values / target_temperature)`` over the
    searched candidates), plus the squared error of the critic to the search's value of its move
    (money from the decision to the end of the hand, × ``reward_scale`` as in the PPO trainers, so
    a PPO run can continue from the result with ``init_from``); (3) the new network plays, and is
    searched, in the next iteration.

    Every iteration deals fresh tables from ``(seed, iteration)`` and draws everything (seats,
    search deals, sampled moves, minibatches) from generators seeded the same way, so an
    iteration's result depends only on the network, the optimizer, the buffer and its number:
    ``--resume`` from a checkpoint continues exactly as the uninterrupted run would have.

    Fields of :class:`~sam_env.training.config.EvalRunConfig` with a meaning of their own here:
    ``total_timesteps`` counts the moves of the network's seats (forced ones included, as the other
    trainers count), checked between iterations (an iteration also stops searching once it is
    reached, then finishes its hands); ``eval_every`` and ``checkpoint_every`` count **iterations** (a fresh
    run is also evaluated before its first iteration; with ``checkpoint_every`` 0 only ``final/`` is written);
    ``pi_layers``, ``vf_layers`` and ``activation`` must match ``init_from``'s network.

    Attributes:
        init_from: a network bot (a shipped name such as ``ppo``, or a checkpoint path) the network
            starts from; null: a fresh network — allowed, but a search whose rollouts are played by
            a random network values moves by random play and teaches little (docs/expert_iteration.md).
        num_tables: tables played at once; every step searches the decisions of all of them in one batch.
        rule_bot_share: chance that a seat is the compiled heuristic for a hand, drawn per hand and
            seat (at most 0.25; at least one seat per table is always the network's). Its moves are
            neither searched nor trained on; its seats put the states its play leads to in the data.
        play: the move the network's seats play: ``search`` (the search's, the expert's own games)
            or ``network`` (sampled from the network's policy, the apprentice's games); searched
            either way. Forced moves are played directly.
        decisions_per_iteration: searched decisions (the network's moves with a choice) an
            iteration collects before it finishes its hands.
        determinizations: deals the search samples per decision.
        candidates: the network's most probable legal moves scored on each deal (at least 2).
        search_models: models of the other seats in the search's rollouts besides the network
            (``heuristic``, a shipped network's name, a checkpoint path), each as likely; empty by
            default: a search that models the opponents' kind teaches the network to exploit that
            kind, which is not what generalizes to opponents it never met.
        proposals: 0: the search's deals are uniform among those consistent with the seat's view; > 0:
            inference — that many uniform deals are proposed and the ``determinizations`` drawn from
            them weighed by how well the network (and ``search_models``) explain the other seats'
            past moves (a seat that passed seldom holds what beats the trick).
        search_workers: processes that search a step's decisions, each its share (each decision's
            deals come from its own generator, so the targets are the same for any number).
        buffer_iterations: iterations whose targets the distillation trains on (the newest ones).
        target_temperature: 0: the policy target is the search's move; > 0: the distribution
            ``softmax(values / target_temperature)`` over the searched candidates (values in X).
        target_margin: with ``target_temperature`` 0: the search's move is the target only where the
            search values it at least this many X above the network's own most probable move; elsewhere
            that move is (a near-tie on a few dozen deals is noise: imitating it moves the network off
            what it already plays well). 0: always the search's move.
        learning_rate: Adam's step size.
        n_epochs: passes over the buffer per iteration.
        batch_size: minibatch size.
        max_grad_norm: gradient clipping, of the actor and of the critic apart (they share no layer).
    """

    trainer: str = "expert"
    init_from: str | None = None
    num_tables: int = 128
    rule_bot_share: float = 0.25
    play: str = "search"
    decisions_per_iteration: int = 4096
    determinizations: int = 32
    candidates: int = 6
    search_models: tuple[str, ...] = ()
    proposals: int = 0
    search_workers: int = 1
    buffer_iterations: int = 2
    target_temperature: float = 0.0
    target_margin: float = 0.0
    learning_rate: float = 1e-4
    n_epochs: int = 4
    batch_size: int = 256
    max_grad_norm: float = 0.5
    eval_every: int = 1
    checkpoint_every: int = 1

    def check(self) -> None:
        super().check()
        init = self.init_from
        ok = init is None or (isinstance(init, str) and init != "")
        require_field("init_from", init, ok, "null or a network bot (a shipped name or a checkpoint path)")
        refuse_panel_bots("init_from", [] if init is None else [init])
        for name in ("num_tables", "decisions_per_iteration", "determinizations", "search_workers"):
            self._require_int(name, 1, "an int > 0")
        for name in ("buffer_iterations", "n_epochs", "batch_size"):
            self._require_int(name, 1, "an int > 0")
        self._require_int("proposals", 0, "an int >= 0 (0: no inference)")
        self._require_int("candidates", 2, "an int >= 2 (one candidate is no choice)")
        self._require_number(
            "rule_bot_share",
            lambda v: 0 <= v <= MAX_RULE_BOT_SHARE,
            f"a number in [0, {MAX_RULE_BOT_SHARE}] (rule bots hold at most a quarter of the seats)",
        )
        require_field("play", self.play, self.play in PLAYS, f"one of {list(PLAYS)}")
        self._require_number("target_temperature", lambda v: v >= 0, "a number >= 0 (0: the search's move)")
        self._require_number("target_margin", lambda v: v >= 0, "a number of X >= 0 (0: always the search's move)")
        if self.target_margin and self.target_temperature:
            raise ConfigError(
                f"config fields target_margin = {self.target_margin} and target_temperature = "
                f"{self.target_temperature}: the margin picks between two moves, so it needs target_temperature: 0"
            )
        for name in ("learning_rate", "max_grad_norm"):
            self._require_number(name, lambda v: v > 0, "a number > 0")
        models = self.search_models
        ok = isinstance(models, (list, tuple)) and all(isinstance(m, str) and m for m in models)
        require_field("search_models", models, ok, "a list of 'heuristic', shipped network names or checkpoint paths")
        refuse_panel_bots("search_models", models)
        object.__setattr__(self, "search_models", tuple(models))
