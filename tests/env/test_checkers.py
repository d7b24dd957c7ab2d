"""The ecosystem's four checkers on the defaults, run exactly as a user would, in a fresh interpreter.

A fresh interpreter, because the gymnasium id is registered by an import (``import sam_env.single_agent``),
and a test inside the suite would find it registered by whatever ran before. PettingZoo's and gymnasium's
checkers need only the base install; SB3's is the ``train`` extra's (tests/conftest.py).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from env_helpers import API_TEST_WARNINGS

ROOT = Path(__file__).resolve().parents[2]

BASE_CHECKERS = """
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
for n_players in (2, 5):
    rules = sam_env.RuleConfig(n_players=n_players)
    api_test(sam_env.env(rules=rules), num_cycles=300)
    seed_test(lambda render_mode=None: sam_env.env(rules=rules, render_mode=render_mode), num_cycles=300)
api_test(sam_env.env(), num_cycles=300)
seed_test(sam_env.env, num_cycles=300)
check_env(gymnasium.make("sam_env/Sam-v1").unwrapped)
"""
SB3_CHECKER = """
from stable_baselines3.common.env_checker import check_env as sb3_check_env
sb3_check_env(gymnasium.make("sam_env/Sam-v1"))
"""
USER_SCRIPT = """
import re
import warnings

import gymnasium
import sam_env
import sam_env.single_agent  # registers "sam_env/Sam-v1"

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
CHECKERS
expected = EXPECTED  # api_test's, about Dict observations and its dummy reset option: nothing else
unexpected = sorted({str(w.message) for w in caught if not any(re.match(p, str(w.message)) for p in expected)})
print("unexpected warnings:", unexpected)
print("the checkers passed")
"""


@pytest.mark.parametrize(
    "checkers", [BASE_CHECKERS, pytest.param(SB3_CHECKER, marks=pytest.mark.train)], ids=["pettingzoo+gymnasium", "sb3"]
)
def test_the_checkers_pass_on_the_defaults(checkers: str) -> None:
    script = USER_SCRIPT.replace("EXPECTED", repr(API_TEST_WARNINGS)).replace(
        "CHECKERS", textwrap.indent(checkers.strip(), "    ")
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the checkers passed" in done.stdout
    assert "unexpected warnings: []" in done.stdout, done.stdout[-3000:]
