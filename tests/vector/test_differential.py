"""The compiled engine against the reference: ``VectorEnv`` and ``sam_env.env()`` in lockstep.

At every step both must show the same seat to act, mask, observations (every seat's), state,
ledger so far, rewards per seat and hand results (:class:`sam_env.vector.reference_check.ShadowTables`).
Here: a sample of random rule configurations, every configuration of the env tests, and every
golden scenario replayed move by move. ``experiments/differential_vector.py`` runs a million hands.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import numpy as np
import pytest
from env.env_helpers import ALL_INSTANT_WINS, CONFIGS, INSTANT_WIN_DEALS
from scenario_data import Scenario, expected_ledger, ledger_rows, load_scenarios

from sam_env import IllegalMoveError, RuleConfig, action_index, action_name
from sam_env.core import Table
from sam_env.encoding import observation_layout, observation_size
from sam_env.vector import Batch, VectorEnv
from sam_env.vector.reference_check import Mismatch, ShadowTables, random_actions, random_rules

SCENARIOS = load_scenarios()


@pytest.mark.parametrize("seed", range(12))
def test_random_rules_agree_with_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shadow = ShadowTables(VectorEnv(8, random_rules(rng), seed=seed))
    shadow.run(80, rng)
    assert shadow.hands > 0


@pytest.mark.parametrize("seed", range(6))
def test_encoding_version_2_agrees_with_the_reference(seed: int) -> None:
    """The history block of version 2 (each opponent's declined plays), at every step, under random rules."""
    rng = np.random.default_rng(100 + seed)
    venv = VectorEnv(8, random_rules(rng), seed=seed, encoding_version=2)
    shadow = ShadowTables(venv)
    shadow.run(80, rng)
    assert shadow.hands > 0
    assert (
        venv.observation_size
        == observation_size(venv.n_players, 1) + dict(observation_layout(venv.n_players, 2))["declined"]
    )


def test_version_2_observations_extend_version_1_and_record_passes() -> None:
    """A version-1 observation is the prefix of the version-2 one of the same table, and the history is not empty."""
    one, two = VectorEnv(16, seed=3), VectorEnv(16, seed=3, encoding_version=2)
    rng = np.random.default_rng(3)
    b1, b2 = one.reset(), two.reset()
    size = one.observation_size
    seen = 0.0
    for _ in range(150):
        assert np.array_equal(b2.observation[:, :size], b1.observation)
        seen += float(b2.observation[:, size:].sum())
        actions = random_actions(rng, b1.action_mask)
        b1, b2 = one.step(actions), two.step(actions)
    assert seen > 0


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_env_test_configurations_agree_with_the_reference(name: str) -> None:
    rng = np.random.default_rng(7)
    shadow = ShadowTables(VectorEnv(8, CONFIGS[name], seed=3))
    shadow.run(80, rng)
    assert shadow.hands > 0


@pytest.mark.parametrize("kind", sorted(INSTANT_WIN_DEALS))
def test_forced_instant_win_deals_agree_with_the_reference(kind: str) -> None:
    deal, winner = INSTANT_WIN_DEALS[kind]
    venv = VectorEnv(4, RuleConfig(instant_wins={kind}), seed=1)
    shadow = ShadowTables(venv)
    batch = shadow.reset(seed=1, options={"hands": [deal, None, deal, None], "leader": [0, None, 3, None]})
    assert batch.current_seat[[0, 2]].tolist() == [winner, winner]
    rng = np.random.default_rng(0)
    ended = []
    for _ in range(40):
        batch = shadow.step(batch, random_actions(rng, batch.action_mask))
        ended += [hand.result for hands in venv.results().values() for hand in hands]
    assert sum(result.instant_win == kind for result in ended) >= 2


def test_random_deals_with_instant_wins_agree_with_the_reference() -> None:
    rules = RuleConfig(n_players=5, instant_wins=ALL_INSTANT_WINS)
    venv = VectorEnv(32, rules, seed=4)
    shadow = ShadowTables(venv, full_every=4)
    rng = np.random.default_rng(4)
    batch = shadow.reset(seed=4)
    kinds = set()
    for _ in range(80):
        batch = shadow.step(batch, random_actions(rng, batch.action_mask))
        kinds |= {hand.result.instant_win for hands in venv.results().values() for hand in hands}
    assert len(kinds - {None}) >= 2, kinds


def test_random_rules_vary_every_rule_option() -> None:
    """A new ``RuleConfig`` option fails here until the differential test draws it, so the compiled
    engine cannot ignore an option the reference plays."""
    rng = np.random.default_rng(0)
    drawn = [random_rules(rng).to_dict() for _ in range(200)]
    fixed = sorted(k for k in drawn[0] if len({repr(d[k]) for d in drawn}) < 2)
    assert not fixed, f"random_rules never varies {fixed}; draw them in sam_env/vector/reference_check.py"


class WrongEngine:
    """A VectorEnv whose ``reset``/``step`` output is altered by ``mutate`` (a copy; the engine is untouched)."""

    def __init__(self, venv: VectorEnv, mutate: Callable[[Batch, bool], None]) -> None:
        self._venv, self._mutate = venv, mutate

    def __getattr__(self, name: str) -> object:
        return getattr(self._venv, name)

    def _altered(self, batch: Batch, at_reset: bool) -> Batch:
        copy = Batch(*(np.array(getattr(batch, f.name)) for f in dataclasses.fields(Batch)))
        self._mutate(copy, at_reset)
        return copy

    def reset(self, **kwargs: object) -> Batch:
        return self._altered(self._venv.reset(**kwargs), True)

    def step(self, actions: np.ndarray, **kwargs: object) -> Batch:
        return self._altered(self._venv.step(actions, **kwargs), False)


def _drop_a_legal_move(batch: Batch, at_reset: bool) -> None:
    table = int(np.argmax(batch.action_mask.sum(axis=1) > 1))  # a table with a choice
    batch.action_mask[table, np.flatnonzero(batch.action_mask[table])[-1]] = False


def _flip_an_observed_card(batch: Batch, at_reset: bool) -> None:
    batch.observation[3, 0] = 1.0 - batch.observation[3, 0]  # the acting seat's first hand bit


def _pay_a_seat_one_x(batch: Batch, at_reset: bool) -> None:
    if not at_reset:
        batch.rewards[5, 1] += 1.0


MUTATIONS = {
    # what is wrong: (the engine, how its output is altered, the one check that must catch it first)
    # an engine playing another chop stake: seen first in the observation, which encodes the stakes
    "chop stake": (RuleConfig(allow_sam=False, chop_per_two=5), None, "observation of the acting seat"),
    "mask": (RuleConfig(allow_sam=False), _drop_a_legal_move, "action mask"),
    "observation": (RuleConfig(allow_sam=False), _flip_an_observed_card, "observation of the acting seat"),
    "money": (RuleConfig(allow_sam=False), _pay_a_seat_one_x, "rewards"),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_the_checker_catches_each_kind_of_wrong_engine_where_it_is_wrong(mutation: str) -> None:
    """A checker that cannot fail proves nothing: each wrong engine must be caught, and by the check of
    the thing that is wrong (a message naming something else would be an accident)."""
    rules, mutate, check = MUTATIONS[mutation]
    shadow = ShadowTables(VectorEnv(8, RuleConfig(allow_sam=False), seed=1))
    wrong = VectorEnv(8, rules, seed=1)
    shadow.venv = wrong if mutate is None else WrongEngine(wrong, mutate)
    with pytest.raises(Mismatch, match=rf"^table \d+ \(.*\): {re.escape(check)} (differs at|vector) "):
        shadow.run(400, np.random.default_rng(0))


def test_the_same_runs_pass_on_the_right_engine() -> None:
    """The control for the test above: the same tables, seed and moves, nothing altered."""
    shadow = ShadowTables(VectorEnv(8, RuleConfig(allow_sam=False), seed=1))
    shadow.venv = WrongEngine(VectorEnv(8, RuleConfig(allow_sam=False), seed=1), lambda batch, at_reset: None)
    shadow.run(400, np.random.default_rng(0))
    assert shadow.hands > 20


def _first_leader(scenario: Scenario) -> int | None:
    """The leader the reference draws for a random first leader (each engine has its own generator)."""
    spec = scenario.hands[0]
    if spec.leader is not None or scenario.rules.first_leader != "random":
        return spec.leader
    return Table(scenario.rules, np.random.default_rng(scenario.seed)).new_hand(spec.deal).leader


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_golden_scenario_through_the_vector_env(scenario: Scenario) -> None:
    venv = VectorEnv(1, scenario.rules, seed=scenario.seed)
    shadow = ShadowTables(venv)
    for k, spec in enumerate(scenario.hands):
        leader = _first_leader(scenario) if k == 0 else spec.leader
        options = {"hands": [spec.deal], "leader": [leader]}
        batch = shadow.reset(seed=scenario.seed if k == 0 else None, options=options)
        finished = venv.results().get(0, [])[:1]
        for i, move in enumerate(spec.moves):
            at = f"{scenario.name} hand {k} move {i} {move.text!r}"
            assert not finished, f"{at}: the hand is over"
            assert batch.current_seat[0] == move.seat, at
            legal = {action_name(a) for a in np.flatnonzero(batch.action_mask[0])}
            if move.kind == "legal":
                assert legal == {action_name(action_index(a)) for a in move.actions}, at
            elif move.kind == "illegal":
                before = venv.state()
                with pytest.raises(IllegalMoveError, match=f"table 0: seat {move.seat}"):
                    venv.step([action_index(move.action)])
                assert np.array_equal(venv.state(), before), f"{at}: a rejected move changed the table"
            else:
                batch = shadow.step(batch, np.array([action_index(move.action)]))
                finished = venv.results().get(0, [])[:1]
        if finished:
            result = finished[0].result
            want = expected_ledger(spec)
            if want is not None:
                assert ledger_rows(result.ledger) == want, scenario.name
            if "net" in spec.expect:
                assert list(result.net) == list(spec.expect["net"]), scenario.name
            if "reason" in spec.expect:
                assert result.reason.value == spec.expect["reason"], scenario.name
        else:
            assert not spec.expect.get("over", "reason" in spec.expect), f"{scenario.name}: the hand did not end"
