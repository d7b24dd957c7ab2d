"""The single-agent (gymnasium) view: one learner seat, the other seats played by given policies.

This is what single-agent libraries such as Stable-Baselines3 and sb3-contrib's MaskablePPO
train on. The learner's reward for a step is the money its *own* seat received between its
decisions: chop money paid to or by it during the opponents' turns and the settlement at the
end of the hand (never another seat's reward; cf. PettingZoo issue 1147).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import register_gymnasium_id
from .aec_env import raw_env
from .bot import Bot
from .core.fields import is_number
from .core.ledger import HandResult
from .core.rules import RuleConfig

OpponentArg = Bot | Sequence[Bot] | None
MAX_REDEALS = 1000
"""Hands dealt in one ``reset`` before giving up on reaching a learner decision (never hit in practice)."""


class LegalDiscrete(spaces.Discrete):
    """The action space of the single-agent view: ``sample()`` without a mask draws a *legal* action.

    Illegal actions raise in this environment, so an unmasked sample would be useless; with
    this default, ``env.action_space.sample()`` is a correct random policy (and gymnasium's and
    SB3's environment checkers, which step with unmasked samples, exercise real moves). The
    link to the environment is not pickled: a saved copy is a plain ``Discrete`` space.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray] | None = None) -> None:
        super().__init__(n)
        self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None and self._legal_mask is not None:
            mask = self._legal_mask().astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_legal_mask"] = None
        return state


class SingleAgentEnv(gym.Env):
    """Sâm Lốc for one learner seat against fixed opponent policies.

    Args:
        opponents: one policy for every other seat, or one per other seat (in seat order,
            skipping the learner). ``None``: uniformly random legal moves drawn from the
            environment's own generator (seeded by ``reset(seed=…)``).
        learner_seat: the learner's seat, or ``None`` for a uniformly random seat each hand.
        rules: as for :class:`sam_env.raw_env`.
        reward_scale: as for :class:`sam_env.raw_env`.
        render_mode: ``"ansi"``, ``"human"`` (the table as text) or ``"rgb_array"`` (a picture of the
            table from the learner's seat; ``reveal_hands=True`` shows the other seats' cards too).
        result_info: the info of a step that ends a hand also holds ``"result"``, the nested result
            with its ledger (by default only fixed-shape scalars; the result is :attr:`result`).
        on_illegal: ``"raise"`` (default): an illegal action raises
            :class:`~sam_env.core.IllegalMoveError`. ``"penalty"``: it ends the hand at once with
            reward ``-illegal_penalty`` (in X, times ``reward_scale``) and ``info["illegal_action"]``
            naming it — for algorithms without action masking, and for gymnasium's environment
            checker, whose determinism check steps with an action sampled before ``reset``.
        illegal_penalty: the money an illegal action costs under ``on_illegal="penalty"``.

    Direct construction raises on an illegal action; the registered id ``sam_env/Sam-v1`` is built
    with ``on_illegal="penalty"`` (override with ``gymnasium.make("sam_env/Sam-v1",
    on_illegal="raise")``), so that the ecosystem's checkers and unmasked algorithms run on it as
    registered. Under the penalty, illegal actions are counted: the ``info`` of every step that ends a
    hand has ``"illegal_actions"``, the hand's count (1 when an illegal action ended it, else 0), so
    episode statistics show whether a learner stepped outside its mask; :attr:`illegal_actions` is
    the total since construction.

    Observations are the flat vectors of the AEC environment; the legal moves are
    :meth:`action_masks` (the method MaskablePPO looks for) and ``info["action_mask"]``. The info of
    a step that ends a hand holds scalars only, so that vectorized collectors can stack infos:
    ``"net"`` (the learner's money in the hand, in X), ``"winner"`` (-1: none), ``"reason"``
    (``"illegal_action"`` for a hand the penalty ended, whose ``"net"`` is 0) and
    ``"illegal_actions"``. ``reset()`` without a seed deals the next hand of the same table;
    ``options`` are those of :meth:`sam_env.raw_env.reset` plus ``"learner_seat"`` (this hand's seat,
    overriding the constructor's). A learner dealt an instant win has one decision, with one legal
    move that reveals it (see :mod:`sam_env.aec_env`). A hand that ends before the learner's first
    decision (another seat's instant win, or a blocked Sâm before its turn) offers nothing to learn;
    it is skipped, and its money for the learner is reported in ``info["skipped_reward"]`` so that
    evaluations can still account for it.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        opponents: OpponentArg = None,
        learner_seat: int | None = None,
        rules: RuleConfig | None = None,
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        on_illegal: str = "raise",
        illegal_penalty: float = 10.0,
        result_info: bool = False,
        reveal_hands: bool = False,
    ) -> None:
        if on_illegal not in ("raise", "penalty"):
            raise ValueError(f"on_illegal={on_illegal!r} is not allowed; expected 'raise' or 'penalty'")
        if not (is_number(illegal_penalty) and illegal_penalty >= 0):
            raise ValueError(f"illegal_penalty={illegal_penalty!r} must be a finite non-negative number")
        self.on_illegal = on_illegal
        self.illegal_penalty = float(illegal_penalty)
        text_mode = render_mode if render_mode != "rgb_array" else None  # pictures follow the learner's seat
        # (raw_env checks the mode)
        self.aec = raw_env(rules=rules, reward_scale=reward_scale, render_mode=text_mode, result_info=result_info)
        if not isinstance(reveal_hands, bool):
            raise ValueError(f"reveal_hands={reveal_hands!r} must be True or False")
        self.reveal_hands = reveal_hands
        self.rules = self.aec.rules
        n = self.rules.n_players
        self.learner_seat = self._check_seat(learner_seat)
        self.opponents = self._check_opponents(opponents, n)
        self.render_mode = render_mode
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = LegalDiscrete(self.aec.action_space(agent0).n, self.action_masks)
        self.seat = 0
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        self._abandoned = False
        self.illegal_actions = 0
        """Illegal actions answered with the penalty since construction (``on_illegal="penalty"``)."""

    def _check_seat(self, seat: object) -> int | None:
        """A learner seat given to the constructor or to ``reset``: None (random) or a seat index."""
        n = self.rules.n_players
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n
        ):
            raise ValueError(f"learner_seat must be None or a seat in 0..{n - 1}, got {seat!r}")
        return None if seat is None else int(seat)

    @staticmethod
    def _check_opponents(opponents: OpponentArg, n: int) -> list[Bot | None]:
        if opponents is None:
            return [None] * (n - 1)
        if isinstance(opponents, Bot) or callable(opponents):
            return [opponents] * (n - 1)
        opponents = list(opponents)
        if len(opponents) != n - 1:
            raise ValueError(f"{n} seats need {n - 1} opponents (or one for all), got {len(opponents)}")
        for i, p in enumerate(opponents):
            if not (isinstance(p, Bot) or callable(p)):
                raise TypeError(f"opponent {i} must have act(observation, view) or be callable, got {p!r}")
        return opponents

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        seat = self._check_seat(options.pop("learner_seat", self.learner_seat))
        explicit = "hands" in options
        skipped_reward, skipped = 0.0, 0
        for attempt in range(MAX_REDEALS):
            self.aec.reset(seed=seed if attempt == 0 else None, options=options or None)
            self._abandoned = False
            self.seat = seat if seat is not None else int(self.aec.np_random.integers(self.rules.n_players))
            self._agent = self.aec.possible_agents[self.seat]
            self._opponent_of = self._seat_policies()
            reward = self._play_opponents()
            if not self.aec.over:
                break
            if explicit:
                raise ValueError(
                    f"the given deal ends ({self.aec.result.reason.value}) before seat {self.seat} acts; "
                    "there is no decision to learn from"
                )
            skipped_reward += reward
            skipped += 1
        else:
            raise RuntimeError(f"no hand reached a decision of seat {self.seat} in {MAX_REDEALS} deals")
        obs, info = self._outputs()
        info.update(skipped_hands=skipped, skipped_reward=skipped_reward)
        return obs, info

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.aec.over or self._abandoned:
            raise RuntimeError("the hand is over; call reset() before step()")
        if self.on_illegal == "penalty" and not self._is_legal(action):
            self._abandoned = True
            self.illegal_actions += 1
            self._mask = np.zeros(self.action_space.n, dtype=bool)
            info = {
                "seat": self.seat,
                "action_mask": self._mask,
                "illegal_action": repr(action),
                "illegal_actions": 1,
                "net": 0,
                "winner": -1,
                "reason": "illegal_action",
            }
            obs = self.aec.observation_of(self.seat)
            return obs, -self.illegal_penalty * self.aec.reward_scale, True, False, info
        self.aec.step(action)
        reward = self.aec.rewards[self._agent] + self._play_opponents()
        terminated = self.aec.over
        obs, info = self._outputs()
        if terminated:
            info.update(self.aec.infos[self._agent])  # net, winner, reason (and the result if asked for)
            info["illegal_actions"] = 0
        return obs, float(reward), terminated, False, info

    def action_masks(self) -> np.ndarray:
        """Legal moves of the learner now (all False once the hand is over)."""
        return self._mask

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self.aec.render_image(self.seat, self.reveal_hands)
        return self.aec.render()

    @property
    def result(self) -> HandResult | None:
        """The result of the hand being played (``None`` until it ends), its ledger included."""
        return self.aec.result

    # ------------------------------------------------------------------ helpers

    def _is_legal(self, action: object) -> bool:
        n = self.action_space.n
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):  # True is not action 1
            return False
        return 0 <= action < n and bool(self._mask[action])

    def _seat_policies(self) -> dict[int, Callable[[Any, Any], int] | None]:
        """Each other seat's way to pick a move (a bot's ``act`` or the callable), looked up once a hand."""
        others = [s for s in range(self.rules.n_players) if s != self.seat]
        acts = [p.act if hasattr(p, "act") else p for p in self.opponents]
        return dict(zip(others, acts, strict=True))

    def _play_opponents(self) -> float:
        """Let the other seats act until the learner must decide or the hand ends; the learner's money."""
        aec = self.aec
        reward = 0.0
        while not aec.over and aec.seat_to_act != self.seat:
            agent = aec.agent_selection
            policy = self._opponent_of[aec.seat_to_act]
            if policy is None:
                legal = aec.legal_moves()
                action = legal[int(aec.np_random.integers(len(legal)))]
            else:
                obs = aec.observe(agent)
                view = aec.seat_view(agent)
                action = policy(obs, view)
            aec.step(action)
            reward += aec.rewards[self._agent]
        return reward

    def _outputs(self) -> tuple[np.ndarray, dict[str, Any]]:
        """The learner's observation and info; refreshes the mask :meth:`action_masks` returns."""
        aec = self.aec
        self._mask = np.zeros(self.action_space.n, dtype=bool) if aec.over else aec.legal_mask().copy()
        return aec.observation_of(self.seat), {"seat": self.seat, "action_mask": self._mask}


class MaskInObservation(gym.ObservationWrapper):
    """The single-agent view with its legal moves inside the observation: ``{"obs": vector, "mask": bool[201]}``.

    For libraries that read an action mask from the observation rather than from ``action_masks()``
    (Tianshou's DQN and PPO apply ``obs.mask``, as for PettingZoo games); ``docs/clients.md`` shows it.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        n = int(env.action_space.n)
        self.observation_space = spaces.Dict({"obs": env.observation_space, "mask": spaces.MultiBinary(n)})

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return {"obs": observation, "mask": self.env.unwrapped.action_masks().copy()}


register_gymnasium_id()  # gymnasium.make("sam_env/Sam-v1") builds SingleAgentEnv
