"""Fingerprints cover what plays: a bot of one's own by its source files (the helpers beside it too) and the state of
the bot built from it (the weights it loads, its own ``fingerprint()``); networks by their weights and rule bots by
their source, as before; always the dict ``{"kind", "sha256", "of"}``."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sam_env import RuleConfig
from sam_env.agents.bot_objects import pickled
from sam_env.agents.code_specs import load_file_module
from sam_env.evaluation.fingerprints import bot_state, fingerprint
from sam_env.utils.files import file_sha256

ROOT = Path(__file__).resolve().parents[2]
RULES = RuleConfig()

AGENT = textwrap.dedent(
    """
    from pathlib import Path

    import numpy as np

    import fp_helpers


    class Agent:
        def __init__(self):
            self.weights = np.load(Path(__file__).parent / "weights.npy")

        def act(self, observation, view):
            return fp_helpers.lowest(observation)
    """
)
HELPERS = textwrap.dedent(
    """
    import numpy as np


    def lowest(observation):
        return int(np.flatnonzero(observation["action_mask"])[0])
    """
)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder for bot files, on ``sys.path`` during the test; the modules loaded from it are forgotten after."""
    monkeypatch.syspath_prepend(str(tmp_path))  # undone after the test, with the folder a file spec appends
    yield tmp_path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


@pytest.fixture
def agent(folder: Path) -> Path:
    """``agent.py`` (which imports ``fp_helpers.py`` beside it and loads ``weights.npy`` from its folder)."""
    (folder / "agent.py").write_text(AGENT, encoding="utf-8")
    (folder / "fp_helpers.py").write_text(HELPERS, encoding="utf-8")
    np.save(folder / "weights.npy", np.arange(12, dtype=np.float32).reshape(3, 4))
    return folder / "agent.py"


def test_a_file_spec_covers_its_helpers_and_the_weights_its_bot_loads(agent: Path) -> None:
    spec = f"{agent}:Agent"
    first = fingerprint(spec, RULES)
    assert set(first) == {"kind", "sha256", "of"} and first["kind"] == "code"
    assert first["of"] == (
        "the source file agent.py (and fp_helpers.py) and the state of the built bot: 1 array (12 numbers)"
    )
    assert fingerprint(spec, RULES) == first  # nothing changed: the same fingerprint
    np.save(agent.with_name("weights.npy"), np.arange(12, dtype=np.float32).reshape(3, 4) + 1)
    new_weights = fingerprint(spec, RULES)
    assert new_weights["sha256"] != first["sha256"]
    helpers = agent.with_name("fp_helpers.py")
    helpers.write_text(HELPERS + "\n# a changed helper\n", encoding="utf-8")
    assert fingerprint(spec, RULES)["sha256"] not in (first["sha256"], new_weights["sha256"])


def test_an_object_given_in_place_of_its_spec_has_the_specs_fingerprint(agent: Path) -> None:
    spec = f"{agent}:Agent"
    cls = load_file_module(agent).Agent
    by_spec = fingerprint(spec, RULES)
    for form in (cls, cls(), pickled(cls, "Agent"), pickled(cls(), "Agent")):
        assert fingerprint(form, RULES) == by_spec, form


def test_a_module_spec_covers_the_modules_of_its_package_that_are_loaded(folder: Path) -> None:
    package = folder / "fp_package"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "rules.py").write_text(HELPERS, encoding="utf-8")
    (package / "unused.py").write_text("NOTHING = None\n", encoding="utf-8")
    (package / "bots.py").write_text(
        "from fp_package.rules import lowest\n\n\nclass Agent:\n    def act(self, observation, view):\n"
        "        return lowest(observation)\n",
        encoding="utf-8",
    )
    first = fingerprint("fp_package.bots:Agent", RULES)
    assert first["of"] == (
        "the source file bots.py of module fp_package.bots (and __init__.py, rules.py); "
        "the built bot holds no arrays or numbers"
    )
    (package / "unused.py").write_text("NOTHING = 1\n", encoding="utf-8")  # not imported: not covered
    assert fingerprint("fp_package.bots:Agent", RULES) == first
    (package / "rules.py").write_text(HELPERS + "\n# changed\n", encoding="utf-8")
    assert fingerprint("fp_package.bots:Agent", RULES)["sha256"] != first["sha256"]


@pytest.mark.parametrize("base", ["plain class", "sam_env.Bot", "batched policy"])
def test_a_bot_that_defines_fingerprint_is_hashed_by_it(folder: Path, base: str) -> None:
    header, method = {
        "plain class": ("class Agent:", "act(self, observation, view)"),
        "sam_env.Bot": ("class Agent(sam_env.Bot):", "act(self, observation, view)"),
        "batched policy": ("class Agent:", "__call__(self, observations, masks)"),
    }[base]
    code = f"""
        from pathlib import Path

        import numpy as np

        import sam_env


        {header}
            def __init__(self, seed=None):
                super().__init__() if isinstance(self, sam_env.Bot) else None
                self.weights = np.ones(3)  # not hashed: fingerprint() says what decides the moves

            def fingerprint(self):
                return (Path(__file__).parent / "version.txt").read_text()

            def {method}:
                raise NotImplementedError
        """
    (folder / "own.py").write_text(textwrap.dedent(code), encoding="utf-8")
    version = folder / "version.txt"
    version.write_text("model 1", encoding="utf-8")
    first = fingerprint(f"{folder / 'own.py'}:Agent", RULES)
    assert first["of"] == "the source file own.py and the bot's own fingerprint()"
    version.write_text("model 2", encoding="utf-8")
    assert fingerprint(f"{folder / 'own.py'}:Agent", RULES)["sha256"] != first["sha256"]


@pytest.mark.train
def test_a_batched_torch_policy_is_covered_by_the_weights_file_it_loads(folder: Path) -> None:
    import torch

    from sam_env.encoding import N_ACTIONS, observation_size

    code = """
        from pathlib import Path

        import torch


        class Policy(torch.nn.Module):
            def __init__(self, rules=None):
                super().__init__()
                self.layer = torch.nn.Linear({inputs}, {actions})
                self.layer.load_state_dict(torch.load(Path(__file__).parent / "weights.pt", weights_only=True))

            def forward(self, observations, masks):
                with torch.inference_mode():
                    logits = self.layer(torch.as_tensor(observations))
                    return logits.masked_fill(~torch.as_tensor(masks), float("-inf")).argmax(dim=1)
        """
    inputs = observation_size(4)
    (folder / "policy.py").write_text(textwrap.dedent(code.format(inputs=inputs, actions=N_ACTIONS)), encoding="utf-8")
    layer = torch.nn.Linear(inputs, N_ACTIONS)
    torch.save(layer.state_dict(), folder / "weights.pt")
    spec = f"{folder / 'policy.py'}:Policy"
    first = fingerprint(spec, RULES)
    numbers = (inputs + 1) * N_ACTIONS
    assert (
        first["of"]
        == f"the source file policy.py and the state of the built bot: 2 arrays ({numbers:,} numbers) in 1 torch module"
        " and 4 plain numbers"  # the modules' own: Linear's in and out features, and both modules' training flags
    )
    assert fingerprint(spec, RULES) == first
    with torch.no_grad():
        layer.bias[0] += 1
    torch.save(layer.state_dict(), folder / "weights.pt")
    assert fingerprint(spec, RULES)["sha256"] != first["sha256"]


def test_fingerprinting_a_numpy_bot_imports_nothing_of_torch(agent: Path) -> None:
    script = (
        "import sys\nfrom sam_env import RuleConfig\nfrom sam_env.evaluation.fingerprints import fingerprint\n"
        f"print(fingerprint({f'{agent}:Agent'!r}, RuleConfig())['of'])\nassert 'torch' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "1 array (12 numbers)" in done.stdout


def test_a_bot_that_does_not_build_here_is_covered_by_its_source_and_says_so(folder: Path) -> None:
    (folder / "broken.py").write_text("class Agent:\n    def __init__(self, a, b):\n        pass\n", encoding="utf-8")
    found = fingerprint(f"{folder / 'broken.py'}:Agent", RULES)
    assert found["sha256"] is not None
    assert found["of"].startswith("the source file broken.py; not the bot's state: the bot did not build here (")
    missing = fingerprint(f"{folder / 'nowhere.py'}:Agent", RULES)
    assert missing["sha256"] is None and missing["of"].startswith("nothing: there is no file ")


def test_building_the_bot_leaves_the_process_random_generators_alone(agent: Path) -> None:
    states = random.getstate(), np.random.get_state()
    fingerprint(f"{agent}:Agent", RULES)  # a plain object is seated with seed 0, which seeds them
    assert random.getstate() == states[0]
    np.testing.assert_array_equal(np.random.get_state()[1], states[1][1])


class Holder:
    __slots__ = ("slotted",)

    def __init__(self, value: object) -> None:
        self.slotted = value


class Walked:
    """Arrays in every place the walk looks, one shared twice, a cycle, and generators (not hashed)."""

    def __init__(self) -> None:
        shared = np.zeros(2)
        self.items = [shared, (np.ones(3), {"key": np.arange(4)})]
        self.again = shared
        self.held = Holder(np.full(5, 7))
        self.method = Holder(np.eye(2)).__init__  # a bound method: the instance it is bound to
        self.rng = np.random.default_rng()
        self.random = random.Random()
        self.me = self
        self.label = "/a/path/that/differs/between/machines"


def test_the_state_walk_finds_arrays_in_containers_slots_and_bound_methods_and_skips_generators() -> None:
    state = bot_state(Walked())
    assert (state.arrays, state.numbers) == (5, 2 + 3 + 4 + 5 + 4)
    again = Walked()
    again.rng.random(10)
    again.label = "elsewhere"
    assert bot_state(again).sha256 == state.sha256
    again.items[1][1]["key"][0] = 9
    assert bot_state(again).sha256 != state.sha256


def test_rule_bots_and_networks_keep_their_fingerprints() -> None:
    assert fingerprint("greedy", RULES) == {
        "kind": "rule bot",
        "sha256": file_sha256(ROOT / "agents" / "greedy_bot.py"),
        "of": "the source file greedy_bot.py",
    }
    assert fingerprint("ppo", RULES)["kind"] == "network"


def test_a_fingerprint_reads_the_imports_not_what_the_process_loaded(folder: Path) -> None:
    """The same bot gives the same fingerprint whatever else this process imported from its folder; a helper it
    imports (through another helper) counts, one it does not import does not."""
    (folder / "fp_closure.py").write_text(
        "import fp_middle\n\nclass Bot:\n    def act(self, o, v):\n        return fp_middle.pick(o)\n", encoding="utf-8"
    )
    (folder / "fp_middle.py").write_text("from fp_leaf import pick\n", encoding="utf-8")
    (folder / "fp_leaf.py").write_text(
        "import numpy as np\n\ndef pick(o):\n    return int(np.flatnonzero(o['action_mask'])[0])\n", encoding="utf-8"
    )
    (folder / "fp_unrelated.py").write_text("X = 1\n", encoding="utf-8")
    spec = f"{folder / 'fp_closure.py'}:Bot"
    first = fingerprint(spec, RULES)
    assert first["of"].startswith("the source file fp_closure.py (and fp_leaf.py, fp_middle.py)")
    load_file_module(folder / "fp_unrelated.py")  # loaded in this process, imported by no file of the bot
    assert fingerprint(spec, RULES) == first
    (folder / "fp_leaf.py").write_text("def pick(o):\n    return 0\n", encoding="utf-8")
    assert fingerprint(spec, RULES)["sha256"] != first["sha256"]


def test_a_function_policy_is_covered_by_the_module_values_it_reads_and_by_its_parameters(folder: Path) -> None:
    """A batched policy that is a function reading weights loaded at import, and a bot holding its tuned parameters
    as plain numbers: both change fingerprint when those change."""
    np.save(folder / "fp_w.npy", np.arange(4.0))
    code = (
        "import numpy as np\nfrom pathlib import Path\nW = np.load(Path(__file__).parent / 'fp_w.npy')\n\n"
        "def policy(observations, masks):\n    return masks.argmax(axis=1)\n"
    )
    (folder / "fp_function.py").write_text(code, encoding="utf-8")
    first = fingerprint(f"{folder / 'fp_function.py'}:policy", RULES)
    for name in [n for n in sys.modules if "fp_function" in n]:
        del sys.modules[name]  # the file is loaded again, with the new weights
    np.save(folder / "fp_w.npy", np.arange(4.0) + 1)
    assert fingerprint(f"{folder / 'fp_function.py'}:policy", RULES)["sha256"] != first["sha256"]
    bot = (
        "class Tuned:\n    def __init__(self):\n        self.params = {'threshold': THRESHOLD}\n"
        "    def act(self, o, v):\n        return int(o['action_mask'].argmax())\n"
    )
    (folder / "fp_tuned.py").write_text("THRESHOLD = 0.5\n" + bot, encoding="utf-8")
    tuned = fingerprint(f"{folder / 'fp_tuned.py'}:Tuned", RULES)
    assert "plain number" in tuned["of"]
