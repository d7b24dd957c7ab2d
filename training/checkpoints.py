"""Checkpoints of a run, shared by every trainer: written whole or not at all, pruned, found and checked
before ``--resume``.

A checkpoint folder (``checkpoints/step_N/`` or ``final/``) holds ``policy.*`` (what bots load),
``trainer.*`` (optimizer moments, self-play pool and RNG states: ``trainer.json`` says which trainer
wrote it, ``sb3`` when it does not) and the run's ``config.yaml``. Each trainer writes and restores
its own (``training/sb3/checkpoints.py``, ``training/batched/state.py``, …), every one through
:func:`written_whole`: the files go into a hidden temporary folder beside the checkpoint, are flushed
to disk and the folder is renamed into place, so a run killed while writing leaves no folder that
looks like a checkpoint and is not. :func:`learn_and_save` runs a trainer's learning with its writer:
after each new ``step_N`` the oldest beyond the config's ``keep_checkpoints`` are removed
(:func:`prune_checkpoints`), and ``final/`` is written at the end. ``--resume RUN_DIR`` takes the run's
last whole checkpoint (:func:`resume_folder`). Nothing is pickled: tensors are safetensors,
everything else JSON or YAML.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, overload

import torch
from safetensors import SafetensorError, safe_open

from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint, load_policy
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.networks.qnet.checkpoint import QCheckpoint, is_qnet_checkpoint, load_qnet
from sam_env.agents.registry import load_bot
from sam_env.core import RuleConfig

from .config import ConfigError, RunConfig

CHECKPOINTS, FINAL = "checkpoints", "final"
STEP = re.compile(r"step_(\d+)")
"""The name of a checkpoint on the way: ``step_000100000``."""
UNFINISHED = (".partial", ".old")
"""Suffixes of the hidden folders of a write in progress (or killed): never a checkpoint, pruned."""
Saver = ParamSpec("Saver")


def step_folder(run_dir: Path, step: int) -> Path:
    """``<run>/checkpoints/step_<step, 9 digits>``."""
    return run_dir / CHECKPOINTS / f"step_{step:09d}"


@contextmanager
def whole_folder(folder: Path) -> Iterator[Path]:
    """Yield a new hidden folder beside ``folder`` to write into; when the block ends its files are flushed
    to disk and it is renamed to ``folder`` (replacing one there). If the block raises, or the process
    is killed in it, ``folder`` is untouched and only the hidden ``.<name>.*.partial`` is left, which no
    reader takes for a checkpoint and :func:`prune_checkpoints` removes. Replacing a folder takes two renames
    (the old one aside, the new one in): a kill between them leaves the old one hidden as ``*.old``, never a
    folder half written."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=UNFINISHED[0], dir=folder.parent))
    try:
        yield temp
        umask = os.umask(0)
        os.umask(umask)
        temp.chmod(0o777 & ~umask)  # mkdtemp makes it private; a checkpoint is read by others' evaluations
        for path in temp.rglob("*"):
            if path.is_file():
                with path.open("rb") as written:
                    os.fsync(written.fileno())
        _replace(temp, folder)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _replace(temp: Path, folder: Path) -> None:
    if folder.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=UNFINISHED[1], dir=folder.parent))
        os.replace(folder, old / folder.name)
        os.replace(temp, folder)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(temp, folder)
    parent = os.open(folder.parent, os.O_RDONLY)
    try:
        os.fsync(parent)  # the rename itself reaches the disk
    finally:
        os.close(parent)


def written_whole(save: Callable[Concatenate[Path, Saver], Path]) -> Callable[Concatenate[Path, Saver], Path]:
    """A checkpoint writer ``save(folder, ...) -> a file in folder`` that writes the folder whole or not at all
    (:func:`whole_folder`); it returns the path that file has once the folder is in place."""

    @functools.wraps(save)
    def whole(folder: Path, *args: Saver.args, **kwargs: Saver.kwargs) -> Path:
        with whole_folder(folder) as temp:
            written = save(temp, *args, **kwargs)
        return folder / written.relative_to(temp)

    return whole


def learn_and_save(
    trainer: Any, run_dir: Path, save: Callable[[Path, Any, str], Path], *learn_args: Any
) -> tuple[Path, float]:
    """Run ``trainer.learn(*learn_args, on_checkpoint=, label=)`` with the checkpoints of every trainer: each one
    due is written whole by ``save(folder, trainer, run name)`` (a :func:`written_whole` writer) into
    ``checkpoints/step_N``, then those beyond the config's ``keep_checkpoints`` are pruned; a trainer that
    stopped before ``total_timesteps`` (its ``stopped_early``: ``chunk_minutes``) gets one at the step it
    stopped at; then ``final/``. The final policy's file and the wall seconds of learning."""
    config = trainer.config
    started = time.perf_counter()

    def checkpoint(step: int) -> None:
        save(step_folder(run_dir, step), trainer, run_dir.name)
        prune_checkpoints(run_dir, config.keep_checkpoints)

    trainer.learn(*learn_args, on_checkpoint=checkpoint, label=config.policy_label)
    seconds = time.perf_counter() - started
    if getattr(trainer, "stopped_early", False):
        checkpoint(trainer.num_timesteps)
    return save(run_dir / FINAL, trainer, run_dir.name), seconds


def prune_checkpoints(run_dir: Path, keep: int) -> list[Path]:
    """Remove all but the newest ``keep`` ``checkpoints/step_N`` of a run (0: keep every one), and what
    killed writers left (hidden ``*.partial``, ``*.old``); the removed folders. Called by the run's
    only writer right after a checkpoint is whole, so nothing it removes is being written."""
    folder = run_dir / CHECKPOINTS
    if not folder.is_dir():
        return []
    steps = sorted((p for p in folder.iterdir() if p.is_dir() and STEP.fullmatch(p.name)), key=_step_of)
    gone = [p for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(UNFINISHED)]
    gone += [p for p in run_dir.iterdir() if p.name.startswith(".") and p.name.endswith(UNFINISHED)]
    if keep > 0:
        gone += steps[:-keep]
    for path in gone:
        shutil.rmtree(path, ignore_errors=True)
    return gone


def resume_folder(path: Path) -> Path:
    """The checkpoint ``--resume PATH`` names: ``PATH`` itself if it is one (it holds ``trainer.json``),
    else, for a run folder, its last whole checkpoint (:func:`latest_checkpoint`). A run folder with none
    (its ``config.yaml`` and no ``checkpoints/step_N`` or ``final/``: the run was stopped before its first
    checkpoint) is a :class:`ConfigError` that says so; any other folder is ``PATH``, whose missing files
    the caller names."""
    if (path / "trainer.json").exists() or _is_checkpoint(path):
        return path
    if (path / CHECKPOINTS).is_dir() or (path / FINAL).is_dir():
        return latest_checkpoint(path)
    if _is_run_without_checkpoint(path):
        raise ConfigError(no_checkpoint_yet(path))
    return path


def _is_checkpoint(folder: Path) -> bool:
    """Whether ``folder`` is a checkpoint (whole or not) rather than a run folder: its name, or its policy files."""
    return folder.name == FINAL or bool(STEP.fullmatch(folder.name)) or any(folder.glob("policy.*"))


def _checkpoints_of(run_dir: Path) -> list[Path]:
    """A run's checkpoint folders, whole or not: ``final/`` and every ``checkpoints/step_N`` (not the hidden
    folders of a write in progress or killed)."""
    found = [run_dir / FINAL] if (run_dir / FINAL).is_dir() else []
    if (run_dir / CHECKPOINTS).is_dir():
        found += [p for p in (run_dir / CHECKPOINTS).iterdir() if p.is_dir() and STEP.fullmatch(p.name)]
    return found


def _is_run_without_checkpoint(folder: Path) -> bool:
    """A run folder (its ``config.yaml``, written when a run starts) that holds no checkpoint yet."""
    return (folder / "config.yaml").is_file() and not _is_checkpoint(folder) and not _checkpoints_of(folder)


def no_checkpoint_yet(run_dir: Path) -> str:
    """The refusal of ``--resume`` for a run that wrote no checkpoint: where it looked, why, and what to do."""
    return (
        f"{run_dir} has no checkpoint yet: nothing to resume in {run_dir / CHECKPOINTS} or {run_dir / FINAL}. "
        "The run was stopped before its first checkpoint; start it again "
        f"(python train.py --config {run_dir / 'config.yaml'}), or with a smaller checkpoint_every "
        "(--set checkpoint_every=N) so that its first checkpoint comes sooner"
    )


def latest_checkpoint(run_dir: Path) -> Path:
    """The whole checkpoint of ``run_dir`` with the most steps (``final/`` before ``step_N`` of as many):
    its trainer state readable, its policy loading with the weights its metadata hashes, its
    ``trainer.safetensors`` readable. :class:`ConfigError` naming what was found if there is none."""
    found = _checkpoints_of(run_dir)
    if not found:  # checkpoints/ holds at most what a writer killed in its first checkpoint left (hidden)
        raise ConfigError(no_checkpoint_yet(run_dir))
    steps: dict[Path, int] = {}
    refused: list[str] = []
    for folder in found:
        try:
            steps[folder] = int(read_trainer_state(folder)["num_timesteps"])
        except ConfigError:
            refused.append(f"{folder.name} (no trainer state)")
    for folder in sorted(steps, key=lambda f: (steps[f], f.name == FINAL), reverse=True):
        try:
            (load_qnet if is_qnet_checkpoint(folder / "policy") else load_policy)(folder / "policy")
            with safe_open(str(folder / "trainer.safetensors"), framework="pt") as tensors:
                tensors.keys()
            if not (folder / "config.yaml").is_file():
                raise OSError("config.yaml is missing")
        except (CheckpointError, OSError, SafetensorError) as err:
            refused.append(f"{folder.name} ({' '.join(str(err).split())[:200]})")
            continue
        return folder
    raise ConfigError(f"{run_dir}: no whole checkpoint to resume from (found {', '.join(refused)})")


def _step_of(folder: Path) -> int:
    match = STEP.fullmatch(folder.name)
    return int(match.group(1)) if match else -1


OPTIMIZER = "optimizer."
"""Prefix of an optimizer's moments in ``trainer.safetensors``: ``optimizer.<parameter index>.<name>``."""


def optimizer_tensors(optimizer: torch.optim.Optimizer) -> dict[str, torch.Tensor]:
    """An optimizer's moments as tensors for ``trainer.safetensors`` (its param groups, plain numbers, go to
    ``trainer.json``): what every trainer of our own keeps to resume (:func:`load_optimizer`)."""
    return {
        f"{OPTIMIZER}{index}.{key}": value.detach().cpu().clone()
        for index, moments in optimizer.state_dict()["state"].items()
        for key, value in moments.items()
    }


def load_optimizer(optimizer: torch.optim.Optimizer, tensors: Mapping[str, torch.Tensor], param_groups: Any) -> None:
    """Restore what :func:`optimizer_tensors` saved, with the param groups saved beside it."""
    moments: dict[int, dict[str, torch.Tensor]] = {}
    for key, value in tensors.items():
        if key.startswith(OPTIMIZER):
            index, name = key[len(OPTIMIZER) :].split(".", 1)
            moments.setdefault(int(index), {})[name] = value
    optimizer.load_state_dict({"state": moments, "param_groups": param_groups})


def read_trainer_state(folder: Path) -> dict[str, Any]:
    """The ``trainer.json`` of a checkpoint folder, checked before a resumed run writes anything."""
    try:
        trainer = json.loads((folder / "trainer.json").read_text(encoding="utf-8"))
        int(trainer["num_timesteps"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        if _is_run_without_checkpoint(folder):  # a trainer's train(..., resume=RUN_DIR) called from Python
            raise ConfigError(no_checkpoint_yet(folder)) from None
        raise ConfigError(
            f"{folder}: cannot read the trainer state (trainer.json + trainer.safetensors) to resume: {err!r}; "
            "expected a folder checkpoints/step_N or final/ written by train.py"
        ) from None
    return trainer


def check_resume(folder: Path, trainer: Mapping[str, Any], config: RunConfig) -> None:
    """Refuse a resume that cannot or should not run, before anything is written.

    Resuming writes into the checkpoint's run (``final/``, ``config.yaml``, TensorBoard events), so
    everything the trainer's restore needs is checked first: the trainer that wrote it, steps left
    to train (a total at or below the steps already done would only overwrite the run's results
    with a copy), a policy that loads and has the config's network and table, and a readable
    ``trainer.safetensors``.
    """
    from .tables import trainer_that_wrote  # a 0.3 run of trainer: ray resumes as batched with tables: ray

    written = trainer_that_wrote(trainer.get("trainer", "sb3"))
    if written != config.trainer:
        raise ConfigError(
            f"{folder}: written by the {written!r} trainer, but its config says trainer: {config.trainer}"
        )
    done = int(trainer["num_timesteps"])
    if config.total_timesteps <= done:
        raise ConfigError(
            f"{folder} is at step {done:,} and total_timesteps is {config.total_timesteps:,}: nothing left to train, "
            f"and resuming would overwrite the run's final/ and config.yaml; raise the total, e.g. "
            f"--set total_timesteps={2 * done}, or start a new run with --config"
        )
    try:
        checked_network(folder, config)
        with safe_open(str(folder / "trainer.safetensors"), framework="pt") as trainer_tensors:
            trainer_tensors.keys()
    except CheckpointError as err:
        raise ConfigError(f"cannot resume: {err}") from None
    except (OSError, SafetensorError) as err:
        raise ConfigError(
            f"cannot resume: {folder}: cannot read the trainer state (trainer.json + trainer.safetensors) to resume: "
            f"{err}"
        ) from None


_NETWORK_KINDS: dict[type, tuple[str, str]] = {
    PPOBot: ("a policy network", "a shipped PPO name such as ppo_v1, or a checkpoint of format sam-env-policy"),
    QBot: ("a Q-network", "a shipped name such as dmc, or a checkpoint of format sam-env-qnet"),
}
"""Each kind of network bot: what it is called in messages, and how to name one."""


@overload
def network_of(spec: str, rules: RuleConfig, source: str, kind: type[PPOBot] = ...) -> PolicyCheckpoint: ...
@overload
def network_of(spec: str, rules: RuleConfig, source: str, kind: type[QBot]) -> QCheckpoint: ...
def network_of(
    spec: str, rules: RuleConfig, source: str, kind: type[PPOBot] | type[QBot] = PPOBot
) -> PolicyCheckpoint | QCheckpoint:
    """The checkpoint (:class:`PolicyCheckpoint` for ``kind=PPOBot``, :class:`QCheckpoint` for ``kind=QBot``) of the
    network bot ``spec`` (a shipped name or a path) that fits ``rules``; ``source`` (the config field or option that
    named it) starts the :class:`ConfigError` for a bot of another kind or one that is not a network."""
    bot = load_bot(spec, rules=rules)
    wanted, how = _NETWORK_KINDS[kind]
    if not isinstance(bot, kind):
        found = next((f"{name}, not {wanted}" for k, (name, _) in _NETWORK_KINDS.items() if isinstance(bot, k)), None)
        raise ConfigError(f"{source}: {spec!r} is {found or 'not ' + wanted}; {source} takes {wanted} ({how})")
    return bot.checkpoint


def checked_network(folder: Path, config: RunConfig) -> PolicyCheckpoint | QCheckpoint:
    """The checkpoint's network of either kind, refused unless it is the config's (and for its table)."""
    if not is_qnet_checkpoint(folder / "policy"):
        return checked_policy(folder, config)
    network = load_qnet(folder / "policy", n_players=config.rule_config.n_players)
    expected = getattr(config, "q_arch", None)
    if network.arch != expected:
        raise ConfigError(f"{folder}: the checkpoint's network {network.arch} differs from the config's {expected}")
    return network


def checked_policy(folder: Path, config: RunConfig) -> PolicyCheckpoint:
    """The checkpoint's policy, refused unless it has the config's network (and table)."""
    policy = load_policy(folder / "policy", n_players=config.rule_config.n_players)
    if policy.arch != config.arch:
        raise ConfigError(f"{folder}: the checkpoint's network {policy.arch} differs from the config's {config.arch}")
    return policy


def run_dir_of(checkpoint: Path) -> Path:
    """The run folder a checkpoint belongs to: ``<run>/checkpoints/step_N`` or ``<run>/final``."""
    folder = checkpoint.resolve()
    return folder.parent.parent if folder.parent.name == CHECKPOINTS else folder.parent
