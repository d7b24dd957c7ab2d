"""Agents of one's own, as a user writes them outside the project (the tests copy this file away
from the repository and name its bots by ``file.py:attr`` and ``module:attr``)."""

from __future__ import annotations

import os

import numpy as np

import sam_env
from sam_env.encoding import N_ACTIONS, observation_size

try:
    import torch
except ModuleNotFoundError:  # the base install: the plain bots only
    torch = None


class Picky(sam_env.Bot):
    """A plain bot: a random legal move, drawn from its own generator (so reseeding matters)."""

    def act(self, observation, view):
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


class Highest(sam_env.Bot):
    """The legal move of highest index, one decision at a time."""

    def act(self, observation, view):
        return int(np.flatnonzero(observation["action_mask"])[-1])


def highest(observations, masks):
    """The same rule as :class:`Highest`, as a batched policy; records the batch sizes it was asked for."""
    BATCH_SIZES.append(len(masks))
    return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)


BATCH_SIZES: list[int] = []


class HighestMany(sam_env.ConcurrentBot):
    """The same rule again, as a bot asked for many decisions at once (as one waiting on a server is)."""

    def act_many(self, observations, views):
        BATCH_SIZES.append(len(views))
        return [max(view.legal) for view in views]


def make_highest(seed=None, rules=None):
    """A factory: called with seed= and rules=."""
    FACTORY_CALLS.append((seed, None if rules is None else rules.n_players))
    return Highest(seed)


FACTORY_CALLS: list[tuple] = []


class FourSeatsLinear:
    """A batched policy whose weights fit 4-player observations only."""

    def __init__(self):
        self.weights = np.random.default_rng(0).normal(size=(observation_size(4), N_ACTIONS)).astype(np.float32)

    def __call__(self, observations, masks):
        return np.argmax(np.where(masks, observations @ self.weights, -np.inf), axis=1)


class FailsMidHand(sam_env.Bot):
    """Plays its lowest legal move; raises at its second decision of the third hand it is seeded for."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.hands, self.moves = 0, 0

    def reseed(self, seed):
        super().reseed(seed)
        self.hands, self.moves = self.hands + 1, 0

    def act(self, observation, view):
        self.moves += 1
        if self.hands >= 3 and self.moves == 2:
            raise RuntimeError("boom: this bot gives up")
        return int(np.flatnonzero(observation["action_mask"])[0])


class DiesMidHand(FailsMidHand):
    """Ends its worker process where :class:`FailsMidHand` raises."""

    def act(self, observation, view):
        if self.hands >= 3 and self.moves == 1:
            os._exit(7)
        return super().act(observation, view)


class Illegal(sam_env.Bot):
    """Passes whenever it is asked, legal or not."""

    def act(self, observation, view):
        return 0


class IllegalLater(Illegal):
    """Plays a legal first decision after each reseed (so it passes the check before play), then passes always."""

    def reseed(self, seed):
        super().reseed(seed)
        self.moves = 0

    def act(self, observation, view):
        self.moves = getattr(self, "moves", 0) + 1
        return int(np.flatnonzero(observation["action_mask"])[0]) if self.moves == 1 else 0


def illegal_batch(observations, masks):
    """A batched policy that passes everywhere, legal or not, in batches of more than two rows (the check
    before play asks for two)."""
    if len(masks) <= 2:
        return np.argmax(masks, axis=1)
    return np.zeros(len(masks), dtype=np.int64)


NOT_A_BOT = 42


class NotABot:
    """Neither act() nor __call__: not a bot."""


if torch is not None:

    class TinyNet(torch.nn.Module):
        """A torch network as a batched policy: one linear layer, the best legal action."""

        def __init__(self, rules=None):
            super().__init__()
            n_players = 4 if rules is None else rules.n_players
            generator = torch.Generator().manual_seed(0)
            self.layer = torch.nn.Linear(observation_size(n_players), N_ACTIONS)
            with torch.no_grad():
                self.layer.weight.copy_(torch.randn(self.layer.weight.shape, generator=generator))
                self.layer.bias.zero_()

        def forward(self, observations, masks):
            with torch.inference_mode():
                logits = self.layer(torch.as_tensor(observations))
                return logits.masked_fill(~torch.as_tensor(masks), float("-inf")).argmax(dim=1)

    class OneThreadOnly(TinyNet):
        """TinyNet that refuses to play with more than one torch thread."""

        def forward(self, observations, masks):
            if torch.get_num_threads() != 1:
                raise RuntimeError(f"torch runs {torch.get_num_threads()} threads here")
            return super().forward(observations, masks)
