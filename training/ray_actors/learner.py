"""The learner of a Ray run: the batched trainer, its rollouts played by env runner actors.

:class:`RayTrainer` is :class:`sam_env.training.batched.trainer.BatchedTrainer` with one difference: its
collector is a :class:`.group.RunnerGroup`, and every snapshot that joins its pool also joins the
runners'. The loop, the PPO update (:func:`sam_env.training.batched.ppo.update` on the runners' joined
decisions), the evaluations, the checkpoints (:mod:`sam_env.training.batched.state`) and the logs are the
batched trainer's own.
"""

from __future__ import annotations

from stable_baselines3.common.logger import Logger

from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint

from ..batched.config import BatchedConfig
from ..batched.trainer import BatchedTrainer
from .group import SYNC, RunnerGroup


class RayTrainer(BatchedTrainer):
    """Learner, optimizer and pool in this process; the tables in ``config.table_workers`` Ray actors.

    Ray must be running (started or joined) before it is built.
    """

    def __init__(self, config: BatchedConfig, start_step: int = 0, logger: Logger | None = None) -> None:
        self.start_step = start_step
        super().__init__(config, start_step, logger=logger)
        self.seconds[SYNC] = 0.0

    def make_collector(self, seed: int) -> RunnerGroup:
        """The env runners (their seeds come from the config, as the local collector's do)."""
        hidden_size = self.venv.hidden_size if self.oracle is not None else 0
        return RunnerGroup(self.config, self.start_step, self.net, self.oracle, self.venv.observation_size, hidden_size)

    def add_to_pool(self, step: int, checkpoint: PolicyCheckpoint) -> None:
        super().add_to_pool(step, checkpoint)
        self.collector.add_to_pool(step, checkpoint.tensors)
