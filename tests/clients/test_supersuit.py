"""SuperSuit's wrappers on the masked game: those that apply pass ``api_test``; Box-only ones refuse by design."""

from __future__ import annotations

import numpy as np
import pytest
import supersuit as ss
from env.env_helpers import expected_warnings_only
from pettingzoo.test import api_test

import sam_env

APPLY = {
    "reward_lambda_v0": lambda env: ss.reward_lambda_v0(env, lambda reward: reward / 20),
    "clip_reward_v0": lambda env: ss.clip_reward_v0(env, lower_bound=-10, upper_bound=10),
    "nan_noop_v0": lambda env: ss.nan_noop_v0(env, 0),
    "observation_lambda_v0": lambda env: ss.observation_lambda_v0(
        env, lambda obs, space: {**obs, "observation": np.round(obs["observation"], 3)}, lambda space: space
    ),
}
BOX_ONLY = {
    "dtype_v0": lambda env: ss.dtype_v0(env, np.float16),
    "flatten_v0": ss.flatten_v0,
    "normalize_obs_v0": ss.normalize_obs_v0,
    "frame_stack_v1": lambda env: ss.frame_stack_v1(env, 2),
    "pad_observations_v0": ss.pad_observations_v0,
    "agent_indicator_v0": ss.agent_indicator_v0,
}


@pytest.mark.parametrize("name", sorted(APPLY))
def test_wrappers_that_apply_pass_api_test(name: str) -> None:
    with expected_warnings_only():
        api_test(APPLY[name](sam_env.env()), num_cycles=100)


@pytest.mark.parametrize("name", sorted(BOX_ONLY))
def test_box_only_wrappers_refuse_the_action_mask_dict(name: str) -> None:
    """docs/clients.md lists them under "avoid": they fail on the Dict observation, as designed."""
    with pytest.raises((AssertionError, AttributeError)):
        env = BOX_ONLY[name](sam_env.env())
        env.reset(seed=0)
        env.observe(env.agent_selection)
