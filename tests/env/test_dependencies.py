"""Dependency direction (STYLE.md): rules ← encoding ← env ← agents; the rules never load RL libraries.

Each check runs in a fresh interpreter, since this test process has long imported everything.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pettingzoo", "gymnasium", "torch", "stable_baselines3", "sb3_contrib", "rlcard", "numba")


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("module", ["sam_env.core", "sam_env.encoding", "sam_env.policy", "sam_env"])
def test_rules_and_encoding_load_no_rl_library(module: str) -> None:
    loaded = run_python(
        f"""
        import sys
        import {module}
        print(sorted(m for m in {HEAVY!r} if m in sys.modules))
        """
    )
    assert loaded == "[]", f"import {module} loaded {loaded}"


def test_environment_layer_loads_on_first_use() -> None:
    out = run_python(
        """
        import sys
        import sam_env
        before = "pettingzoo" in sys.modules
        env = sam_env.env()
        env.reset(seed=0)
        print(before, "pettingzoo" in sys.modules, type(sam_env.raw_env()).__name__, sam_env.SingleAgentEnv.__name__)
        """
    )
    assert out == "False True raw_env SingleAgentEnv"


@pytest.mark.parametrize(
    "first",
    ["import sam_env.wrappers", "from sam_env.aec_env import raw_env", "import sam_env.aec_env", "import gymnasium"],
)
def test_env_factory_is_not_hidden_by_its_module(first: str) -> None:
    """``sam_env.env`` is the factory whichever way the environment modules were loaded first."""
    out = run_python(
        f"""
        {first}
        import sam_env
        from sam_env import env
        print(callable(sam_env.env), env is sam_env.env, env().metadata["name"])
        """
    )
    assert out == "True True sam_v0"


@pytest.mark.parametrize("order", ["sam_env_first", "gymnasium_first", "via_pettingzoo"])
def test_gymnasium_id_is_registered_whatever_the_import_order(order: str) -> None:
    imports = {
        "sam_env_first": "import sam_env\nimport gymnasium",
        "gymnasium_first": "import gymnasium\nimport sam_env",
        "via_pettingzoo": "import sam_env\nimport pettingzoo\nimport gymnasium",
    }[order]
    out = run_python(
        imports
        + """
env = gymnasium.make("sam_env/Sam-v0")
obs, info = env.reset(seed=0)
print(type(env.unwrapped).__name__, obs.shape == env.observation_space.shape)
"""
    )
    assert out == "SingleAgentEnv True"


def _imported_modules(path: Path) -> set[str]:
    """Absolute names of every module a file imports, at the top or inside functions."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            found.add(".".join(p for p in (base, node.module or "") if p))
    return found


LAYERS = [
    ("sam_env/core", ("gymnasium", "pettingzoo", "torch", "sam_env.aec_env", "sam_env.wrappers")),
    ("sam_env", ("agents", "evaluation", "training", "train")),
    ("agents", ("evaluation", "training", "train")),
    ("evaluation", ("training", "train")),
    ("training", ("train",)),
]


@pytest.mark.parametrize(("folder", "forbidden"), LAYERS, ids=[f for f, _ in LAYERS])
def test_no_module_imports_a_layer_above_it(folder: str, forbidden: tuple[str, ...]) -> None:
    """STYLE.md's one-way dependencies, checked in the source so that a lazy import cannot hide."""
    offenders = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in _imported_modules(path)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    }
    assert not offenders, sorted(offenders)
