"""Optional extras imported on first use (sam_env.utils.extras): a missing one is one line naming the extra and its
install command, the trainers that need one say so, and a module missing for another reason is not blamed on it."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from sam_env.utils.extras import MissingExtra, import_extra, install_command

if sys.version_info >= (3, 11):
    import tomllib
else:  # the dev extra brings tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder on ``sys.path`` for small modules of a test's own (each name used once, so none is cached)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_missing_module_of_the_extra_names_the_extra_and_the_pip_command(modules: Path) -> None:
    (modules / "needs_fake_extra.py").write_text("import fake_extra_lib\n", encoding="utf-8")
    with pytest.raises(MissingExtra) as caught:
        import_extra("needs_fake_extra", extra="fake", needs=("fake_extra_lib",), what="trainer: fake")
    message = str(caught.value)
    assert message == ('trainer: fake needs the fake extra (fake_extra_lib is not installed): pip install -e ".[fake]"')
    assert install_command("fake") in message and caught.value.name == "fake_extra_lib"
    assert isinstance(caught.value, ModuleNotFoundError)  # what callers of a plain import already catch


def test_a_dependency_the_extras_package_lacks_is_the_extras_too(modules: Path) -> None:
    """The extra's own package is there but cannot import what it needs (a partial install): install the extra."""
    (modules / "partial_extra_lib").mkdir()
    (modules / "partial_extra_lib" / "__init__.py").write_text("import its_missing_dependency\n", encoding="utf-8")
    (modules / "uses_partial_extra.py").write_text("import partial_extra_lib\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"needs the partial extra \(its_missing_dependency is not installed\)"):
        import_extra(
            "uses_partial_extra", extra="partial", needs=("partial_extra_lib",), what="this run", error=ValueError
        )


def test_a_module_missing_for_another_reason_is_not_blamed_on_the_extra(modules: Path) -> None:
    (modules / "broken_own_module.py").write_text("import extra_lib_present\nimport our_own_typo\n", encoding="utf-8")
    (modules / "extra_lib_present.py").write_text("", encoding="utf-8")
    with pytest.raises(ModuleNotFoundError) as caught:
        import_extra("broken_own_module", extra="fake", needs=("extra_lib_present",), what="trainer: fake")
    assert not isinstance(caught.value, MissingExtra) and caught.value.name == "our_own_typo"
    with pytest.raises(ValueError, match="name the modules"):
        import_extra("json", extra="fake", needs=(), what="trainer: fake")
    assert import_extra(".decoder", package="json", extra="fake", needs=("fake",), what="x").__name__ == "json.decoder"


def test_the_trainers_that_need_an_extra_refuse_with_its_install_command() -> None:
    """``trainer: rllib`` and ``tables: ray`` (DMC and batched PPO) without Ray, ``trainer: dqn`` without Tianshou
    (hidden from a fresh interpreter): a ConfigError naming the extra and the command, before anything runs."""
    code = textwrap.dedent(
        """
        import sys
        from sam_env.training.config import ConfigError
        from sam_env.training.trainers import TRAINERS, config_from_dict

        for name, hidden, extra in (
            ("rllib", "ray", {}),
            ("batched", "ray", {"tables": "ray"}),
            ("dmc", "ray", {"tables": "ray"}),
            ("dqn", "tianshou", {}),
        ):
            sys.modules[hidden] = None  # an import of it now fails as a missing module does
            try:
                TRAINERS[name].train(config_from_dict({"trainer": name, **extra}), None, None)
            except ConfigError as err:
                print(err)
            del sys.modules[hidden]
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        'trainer: rllib needs the rllib extra (ray is not installed): pip install -e ".[rllib]"',
        'tables: ray needs the rllib extra (ray is not installed): pip install -e ".[rllib]"',
        'tables: ray needs the rllib extra (ray is not installed): pip install -e ".[rllib]"',
        'trainer: dqn needs the clients extra (tianshou is not installed): pip install -e ".[clients]"',
    ]


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(r).name.lower() for r in requirements}


def test_the_tier_markers_name_what_their_extra_installs_and_no_base_dependency() -> None:
    """pyproject.toml's markers say what each tier needs: the ``train`` marker lists exactly the train extra (no
    openskill, a base dependency since sam-eval's ratings run on the base install), and no marker of an extra
    names a base dependency as that extra's."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = project["project"]["optional-dependencies"]
    base = _names(project["project"]["dependencies"])
    markers = dict(m.split(": ", 1) for m in project["tool"]["pytest"]["ini_options"]["markers"])
    listed = re.fullmatch(r"needs the train extra \((.*)\)", markers["train"])
    assert listed, markers["train"]
    assert set(listed.group(1).split(", ")) == _names(extras["train"])
    for tier, text in markers.items():
        if tier in extras:
            named = set(re.findall(r"[\w-]+", text.lower())) & base
            assert not named, f"marker {tier!r} names base dependencies {sorted(named)} as the {tier} extra's"
