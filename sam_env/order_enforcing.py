"""``env()``'s order-enforcing wrapper: PettingZoo's own, with the attributes an AEC loop reads at every
step forwarded directly.

It builds on the stock wrapper's private state, hence the pinned pettingzoo range in pyproject.toml;
``tests/env/test_order_enforcing.py`` runs PettingZoo's checks on both wrappers and compares them.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator


def _forwarded(name: str, before_reset_error: bool = True) -> property:
    def get(self: OrderEnforcing) -> Any:
        if before_reset_error and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped environment's ``{name}``.")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the attributes an AEC loop reads at every step
    forwarded directly.

    The stock wrapper reaches them through two levels of ``__getattr__``, a large share of a step's
    time in a plain AEC loop; these properties make the same before-reset checks, and ``step``,
    ``last`` and ``agent_iter`` make the stock checks without the base wrapper's extra calls.
    """

    agent_selection = _forwarded("agent_selection")
    agents = _forwarded("agents")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards", before_reset_error=False)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if observe and not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: int | None) -> None:
        """The stock wrapper's checks, then the environment's step without the base wrapper's hop."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if not self.env.agents:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """The stock order-enforcing iterator's checks in one call, reading the environment directly."""

    def __next__(self) -> str:
        wrapper = self.env
        if not wrapper.env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return wrapper.env.agent_selection
