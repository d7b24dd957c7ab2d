"""The recipes: training configs that ``python train.py --config NAME`` runs by name (``default``, ``sb3``, ...).

This folder installs as ``sam_env.configs`` (pyproject.toml), its ``*.yaml`` files as package data, so a
name works from any folder and from a non-editable install (``sam_env.training.recipes``). ``past_runs/``
holds the configs of past runs, kept to reproduce them from a checkout (run by path, not installed); the
tests' fixtures live in ``tests/training/configs/`` and ``sam-exploit``'s inputs in ``apps/configs/``.
"""
