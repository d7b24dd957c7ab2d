"""Shared test setup.

Having this file at ``tests/`` puts the folder on ``sys.path`` (pytest's default import mode), so
test modules anywhere below can ``import scenario_data`` — the golden-scenario loader shared by the
engine's and the environment's tests.
"""
