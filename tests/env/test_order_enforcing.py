"""``env()``'s fast order-enforcing wrapper against PettingZoo's stock one, side by side.

``sam_env.env()`` wraps ``raw_env`` in a subclass of PettingZoo's ``OrderEnforcingWrapper`` that
forwards the attributes an AEC loop reads at every step directly (the stock wrapper's two levels of
``__getattr__`` cost about a third of the loop). It relies on the stock wrapper's private state,
hence the pinned pettingzoo range in pyproject.toml; these tests run PettingZoo's own checks on both
wrappers and compare everything they return over whole hands, so a pettingzoo release that changes
the wrapper fails here first.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from env_helpers import expected_warnings_only
from pettingzoo import AECEnv
from pettingzoo.test import api_test
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

import sam_env
from sam_env.aec_env import OrderEnforcing

WRAPPERS: dict[str, Callable[..., AECEnv]] = {
    "fast": lambda **kwargs: sam_env.env(**kwargs),
    "stock": lambda **kwargs: wrappers.OrderEnforcingWrapper(sam_env.raw_env(**kwargs)),
}


def test_env_uses_the_fast_wrapper() -> None:
    env = sam_env.env()
    assert type(env) is OrderEnforcing and isinstance(env, wrappers.OrderEnforcingWrapper)


@pytest.mark.parametrize("kind", sorted(WRAPPERS))
def test_pettingzoo_api_test_passes_on_both_wrappers(kind: str) -> None:
    env = WRAPPERS[kind]()  # api_test's dummy reset option is ignored with a warning
    with expected_warnings_only():
        api_test(env, num_cycles=300)


@pytest.mark.parametrize("kind", sorted(WRAPPERS))
def test_both_wrappers_enforce_the_call_order(kind: str) -> None:
    env = WRAPPERS[kind]()
    for call in (env.agent_iter, lambda: env.step(0)):
        with pytest.raises(AssertionError, match="reset"):
            call()
    # last() before reset: the fast wrapper says so (AssertionError, as for observe); the stock one
    # fails on reading agent_selection (AttributeError). Both name reset.
    with pytest.raises(AssertionError if kind == "fast" else AttributeError, match="reset"):
        env.last()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    env.reset(seed=0)
    agents = iter(env.agent_iter())
    next(agents)
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)
    env.reset(seed=0)
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    assert not env.agents
    EnvLogger.mqueue.clear()
    env.step(None)
    assert any("step() called after all agents are terminated" in message for message in EnvLogger.mqueue)


def _transcript(env: AECEnv, hands: int) -> list[object]:
    """Everything an AEC loop sees over ``hands`` hands of one seeded table, random legal moves."""
    rng = np.random.default_rng(0)
    seen: list[object] = []
    for hand in range(hands):
        env.reset(seed=7 if hand == 0 else None)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            seen.append((agent, observation["observation"].tobytes(), observation["action_mask"].tobytes()))
            seen.append((reward, terminated, truncated, repr(info), dict(env.rewards), list(env.agents)))
            legal = np.flatnonzero(observation["action_mask"])
            env.step(None if terminated or truncated else int(rng.choice(legal)))
    return seen


def test_both_wrappers_show_the_same_game() -> None:
    fast, stock = (_transcript(WRAPPERS[kind](), hands=30) for kind in ("fast", "stock"))
    assert fast == stock
