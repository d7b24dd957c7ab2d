"""Dependency direction (docs/architecture.md): rules ← encoding ← env ← agents; the rules never load RL libraries.

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
HEAVY = ("pettingzoo", "gymnasium", "torch", "stable_baselines3", "sb3_contrib", "rlcard", "numba", "PIL", "matplotlib")
CLIENTS = ("tianshou", "torchrl", "supersuit", "moviepy")


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("module", ["sam_env.core", "sam_env.encoding", "sam_env.bot", "sam_env"])
def test_rules_and_encoding_load_no_rl_library(module: str) -> None:
    loaded = run_python(
        f"""
        import sys
        import {module}
        print(sorted(m for m in {HEAVY + CLIENTS!r} if m in sys.modules))
        """
    )
    assert loaded == "[]", f"import {module} loaded {loaded}"


def test_pictures_load_pillow_on_the_first_picture_only() -> None:
    out = run_python(
        """
        import sys
        import sam_env
        env = sam_env.env(render_mode="rgb_array")
        env.reset(seed=0)
        before = sorted(m for m in ("PIL", "matplotlib") if m in sys.modules)
        print(before, env.render().shape, "PIL" in sys.modules)
        """
    )
    assert out == "[] (640, 960, 3) True"


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
    [
        "import sam_env.single_agent",
        "from sam_env.aec_env import raw_env",
        "import sam_env.aec_env",
        "import gymnasium",
    ],
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
    assert out == "True True sam_v1"


REGISTERING_IMPORTS = {
    "gymnasium_then_sam_env": ("import gymnasium\nimport sam_env", "sam_env/Sam-v1"),
    "the_wrappers_module": ("import sam_env.single_agent\nimport gymnasium", "sam_env/Sam-v1"),
    "sam_env_then_its_env": ("import sam_env\nimport gymnasium\nsam_env.env()", "sam_env/Sam-v1"),
    "gymnasium_imports_it": ("import gymnasium", "sam_env.single_agent:sam_env/Sam-v1"),
}


@pytest.mark.parametrize("case", sorted(REGISTERING_IMPORTS))
def test_gymnasium_id_is_registered_where_the_single_agent_env_lives(case: str) -> None:
    """No import hook: importing the module that holds the view registers it (gymnasium's way)."""
    imports, env_id = REGISTERING_IMPORTS[case]
    out = run_python(
        imports
        + f"""
env = gymnasium.make({env_id!r})
obs, info = env.reset(seed=0)
print(type(env.unwrapped).__name__, obs.shape == env.observation_space.shape, env.spec.id)
"""
    )
    assert out == "SingleAgentEnv True sam_env/Sam-v1"


def test_the_previous_id_still_loads_with_gymnasiums_deprecation_warning() -> None:
    out = run_python(
        """
        import warnings
        import gymnasium
        import sam_env.single_agent
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            env = gymnasium.make("sam_env/Sam-v0")
        deprecated = [w for w in caught if w.category is DeprecationWarning]
        says = "sam_env/Sam-v0 is out of date" in str(deprecated[0].message)
        print(type(env.unwrapped).__name__, len(deprecated), says)
        """
    )
    assert out == "SingleAgentEnv 1 True"


def test_sam_env_installs_no_import_hook() -> None:
    out = run_python(
        """
        import sys
        before = list(sys.meta_path)
        import sam_env
        print(sys.meta_path == before)
        """
    )
    assert out == "True"


PACKAGE_FOLDERS = {
    "sam_env": "sam_env",
    "agents": "sam_env.agents",
    "evaluation": "sam_env.evaluation",
    "training": "sam_env.training",
    "apps": "sam_env.apps",
}
"""Each top-level source folder and the package it installs as (pyproject.toml's ``package-dir``)."""


def _module_parts(path: Path) -> tuple[str, ...]:
    """A source file's module name as installed, split: ``agents/ppo/bot.py`` → sam_env, agents, ppo, bot."""
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    return (*PACKAGE_FOLDERS[folder].split("."), *rest)


def _imported_modules(path: Path, source: str | None = None) -> set[str]:
    """Absolute names of every module a file imports, at the top or inside functions; ``from package import name``
    counts ``package.name`` too, since ``name`` may be a module (``from sam_env.agents.networks import qnet``)."""
    package = ".".join(_module_parts(path)[:-1])
    found: set[str] = set()
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def test_the_import_reader_sees_every_form_of_import() -> None:
    """The reader the layer checks stand on: relative, ``from package import module``, and lazy imports."""
    path = ROOT / "agents" / "networks" / "policy" / "example.py"  # read as if it were there
    for code, module in [
        ("from .. import qnet\n", "sam_env.agents.networks.qnet"),
        ("from ..qnet.bot import QBot\n", "sam_env.agents.networks.qnet.bot"),
        ("from sam_env.agents.networks import qnet as q\n", "sam_env.agents.networks.qnet"),
        ("def f():\n    import sam_env.training\n", "sam_env.training"),
    ]:
        assert module in _imported_modules(path, code), code


LAYERS = [
    (
        "sam_env/core",
        ("gymnasium", "pettingzoo", "torch", "yaml", "PIL", "matplotlib", "sam_env.aec_env", "sam_env.single_agent"),
    ),
    ("sam_env", ("sam_env.agents", "sam_env.evaluation", "sam_env.training", "train", "sam_env.apps")),
    ("agents", ("sam_env.evaluation", "sam_env.training", "train", "sam_env.apps")),
    ("evaluation", ("sam_env.training", "train", "sam_env.apps")),
    ("training", ("train", "sam_env.apps")),
]


@pytest.mark.parametrize(("folder", "forbidden"), LAYERS, ids=[f for f, _ in LAYERS])
def test_no_module_imports_a_layer_above_it(folder: str, forbidden: tuple[str, ...]) -> None:
    """The one-way dependencies of docs/architecture.md, checked in the source so that a lazy import cannot hide."""
    offenders = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in _imported_modules(path)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    }
    assert not offenders, sorted(offenders)


NETWORK_KINDS = ("sam_env.agents.networks.policy", "sam_env.agents.networks.qnet")
"""The two kinds of trained network: each builds on the networks' shared format, never on the other kind."""


def test_no_import_between_the_two_network_kinds() -> None:
    """A policy and a Q-network share their file format and forward pass (agents/networks/format.py, layers.py);
    neither kind imports the other, and the shared modules import neither."""
    folders = {"agents/networks/policy": NETWORK_KINDS[1], "agents/networks/qnet": NETWORK_KINDS[0]}
    shared = [ROOT / "agents/networks/format.py", ROOT / "agents/networks/layers.py"]
    offenders = {
        f"{path.relative_to(ROOT)} imports {name}"
        for folder, other in folders.items()
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name in _imported_modules(path)
        if name == other or name.startswith(other + ".")
    } | {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in shared
        for name in _imported_modules(path)
        if any(name == kind or name.startswith(kind + ".") for kind in NETWORK_KINDS)
    }
    assert all(any((ROOT / f).rglob("*.py")) for f in folders)
    assert not offenders, sorted(offenders)


def _module_graph() -> dict[str, set[str]]:
    """Every project module and the project modules it imports by name (lazy imports included);
    ``from package import module`` counts as importing that module, not the package."""
    files: dict[str, Path] = {}
    for folder in PACKAGE_FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            parts = _module_parts(path)
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package if node.level else ""
                module = ".".join(p for p in (base, node.module or "") if p)
                found.update(f"{module}.{a.name}" if f"{module}.{a.name}" in files else module for a in node.names)
        graph[name] = {m for m in found if m in files and m != name}
    return graph


def test_no_import_cycles() -> None:
    """A module that imports, even lazily, a module that imports it back hides which one is the layer below."""
    graph = _module_graph()
    assert {"sam_env.evaluation.tournament", "sam_env.evaluation.ray_pool", "sam_env.training.trainers"} <= set(graph)
    assert "sam_env.evaluation.ray_pool" in graph["sam_env.evaluation.tournament"]  # lazy imports are seen
    cycles = []
    for start in sorted(graph):
        path, seen = [start], set()
        stack = [iter(sorted(graph[start]))]
        while stack:  # depth-first: a path back to ``start`` is a cycle through it
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                path.pop()
            elif step == start:
                cycles.append(" -> ".join([*path, start]))
                break
            elif step not in seen and step > start:  # each cycle once, from its smallest module
                seen.add(step)
                path.append(step)
                stack.append(iter(sorted(graph[step])))
    assert not cycles, cycles


SIZE_LIMITS = {"train.py": 200, **{folder: 450 for folder in ("sam_env", "agents", "evaluation", "apps", "training")}}


@pytest.mark.parametrize(("place", "limit"), SIZE_LIMITS.items(), ids=list(SIZE_LIMITS))
def test_modules_stay_small(place: str, limit: int) -> None:
    """The developer guide's limits (train.py is the story of a run, a module one job), kept by a test."""
    path = ROOT / place
    files = [path] if path.is_file() else sorted(path.rglob("*.py"))
    too_long = {
        str(f.relative_to(ROOT)): n for f in files if (n := len(f.read_text(encoding="utf-8").splitlines())) > limit
    }
    assert files and not too_long, f"over {limit} lines: {too_long}"
