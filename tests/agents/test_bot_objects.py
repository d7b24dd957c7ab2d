"""Any object that plays is a bot: a plain class with ``act(observation, view)`` is evaluated as it is, seated in an
adapter that adds what a ``sam_env.Bot`` has (``reseed``, a name), scores exactly what the same rule scores as a
``Bot`` subclass on any number of workers, and is seeded for every hand; an object that cannot play is refused
before the first hand with a message that says what was expected."""

from __future__ import annotations

import copy
import pickle
import random
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import sam_env
from sam_env import RuleConfig
from sam_env.agents.bot_objects import ActBot, PolicyBot, as_bot, probe_bot
from sam_env.agents.code_specs import BotSpecError, load_file_module
from sam_env.evaluation.matches import hand_seed
from sam_env.evaluation.tournament import Match, MatchResult, run_matches

PLAIN_BOTS = textwrap.dedent(
    '''
    """Bots as a researcher first writes them: plain classes with act(observation, view)."""
    import random

    import numpy as np

    import sam_env


    def legal(observation):
        return np.flatnonzero(observation["action_mask"])


    class Lowest:
        def act(self, observation, view):
            return int(legal(observation)[0])


    class LowestBot(sam_env.Bot):
        def act(self, observation, view):
            return int(legal(observation)[0])


    class GlobalDraws:
        """Draws from the process's generators, as a first bot does."""

        def act(self, observation, view):
            moves = legal(observation)
            if random.random() < 0.5:
                return int(np.random.choice(moves))
            return int(random.choice(list(moves)))


    SEEDS = []


    class OwnGenerator:
        """Has a generator of its own, and a reseed that restarts it."""

        def __init__(self):
            self.rng = np.random.default_rng()

        def reseed(self, seed):
            SEEDS.append(seed)
            self.rng = np.random.default_rng(seed)

        def act(self, observation, view):
            return int(self.rng.choice(legal(observation)))


    def highest(observations, masks):
        return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)


    class WrongSignature:
        def act(self, observation):
            return int(legal(observation)[0])


    class AnswersNone:
        def act(self, observation, view):
            return None


    class NeedsTwoArguments:
        def __init__(self, weights_path, depth):
            self.weights = np.load(weights_path)

        def act(self, observation, view):
            return int(legal(observation)[0])


    class NeedsAPath:
        def __init__(self, weights_path):
            self.weights = np.load(weights_path)

        def act(self, observation, view):
            return int(legal(observation)[0])


    class FourSeatsOnly(Lowest):
        n_players = 4
    '''
)


@pytest.fixture
def plain_bots(tmp_path: Path) -> Path:
    """The plain bots in a file of their own (named by ``file.py:attr`` specs, so they travel to worker processes)."""
    path = tmp_path / "plain_bots.py"
    path.write_text(PLAIN_BOTS, encoding="utf-8")
    return path


@pytest.fixture
def global_generators() -> Iterator[None]:
    """The process's ``random`` and ``np.random`` states, given back after a test that seeds them."""
    states = random.getstate(), np.random.get_state()
    yield
    random.setstate(states[0])
    np.random.set_state(states[1])


class Plain:
    """An object with ``act`` alone (and what the evaluation reads where it has it)."""

    name = "plain"
    n_players = 3
    encoding_version = 1

    def act(self, observation: dict, view: object) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


class ActAndCall(Plain):
    """Both a per-decision bot and a batched policy."""

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.argmax(masks, axis=1)


class Subclass(sam_env.Bot):
    def act(self, observation: dict, view: object) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def assert_same_results(a: list[MatchResult], b: list[MatchResult]) -> None:
    """Every metric of every hand, the leaders and the money passed on: equal."""
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.metrics, y.metrics)
        np.testing.assert_array_equal(x.leaders, y.leaders)
        np.testing.assert_array_equal(x.passed_on, y.passed_on)


# ---------------------------------------------------------------- a plain class plays as it is


def test_a_plain_class_scores_on_two_workers_exactly_what_the_same_bot_subclass_scores(plain_bots: Path) -> None:
    """By file spec, and as the class or an instance given in place of a spec (pickled to the workers)."""
    opponents = ("random",) * 3
    lowest = load_file_module(plain_bots).Lowest
    forms = [f"{plain_bots}:Lowest", lowest, lowest()]
    *plain, subclass = run_matches(
        [
            *(Match(form, opponents, label=f"form {i}") for i, form in enumerate(forms)),
            Match(f"{plain_bots}:LowestBot", opponents),
        ],
        RuleConfig(),
        deals=6,
        seed=3,
        workers=2,
        progress=False,
    )
    assert_same_results(plain, [subclass] * len(forms))
    assert subclass.summary().hands == 24


@pytest.mark.parametrize("opponents", ["random", "batched"])
def test_a_plain_bot_drawing_from_random_and_np_random_gives_the_same_results_on_one_and_two_workers(
    plain_bots: Path, opponents: str, global_generators: None
) -> None:
    """One decision at a time, and in lockstep beside a batched policy (several hands drawing from one stream)."""
    lineup = ("random",) * 3 if opponents == "random" else (f"{plain_bots}:highest",) * 3
    deals = 6 if opponents == "random" else 20  # lockstep: two groups of deals, one per worker
    matches = [Match(f"{plain_bots}:GlobalDraws", lineup)]
    one = run_matches(matches, RuleConfig(), deals=deals, seed=4, workers=1, progress=False)
    two = run_matches(matches, RuleConfig(), deals=deals, seed=4, workers=2, progress=False)
    assert_same_results(one, two)
    lowest = run_matches(
        [Match(f"{plain_bots}:Lowest", lineup)], RuleConfig(), deals, seed=4, workers=1, progress=False
    )
    assert not np.array_equal(one[0].metrics, lowest[0].metrics)  # its draws decide something


def test_a_plain_object_with_reseed_is_reseeded_before_every_hand_and_the_process_generators_are_left_alone(
    plain_bots: Path,
) -> None:
    module = load_file_module(plain_bots)
    module.SEEDS.clear()
    states = random.getstate(), np.random.get_state()
    matches = [Match(f"{plain_bots}:OwnGenerator", ("random",) * 3)]
    run_matches(matches, RuleConfig(), deals=2, seed=5, workers=1, progress=False)
    assert module.SEEDS == [hand_seed(5, d, s, 0) for d in range(2) for s in range(4)]
    assert random.getstate() == states[0]
    np.testing.assert_array_equal(np.random.get_state()[1], states[1][1])


# ---------------------------------------------------------------- what cannot play is refused before the first hand


@pytest.mark.parametrize(
    ("attr", "error", "message"),
    [
        (
            "WrongSignature",
            ValueError,
            r"WrongSignature cannot play this 4-player table: .* failed on the first decision .*TypeError: .*"
            r"expected act\(observation, view\) returning a legal action index",
        ),
        ("AnswersNone", ValueError, r"answered None, which is not an action index; expected an int, one of the legal"),
        (
            "NeedsTwoArguments",
            BotSpecError,
            r"requires 'weights_path', 'depth'; a bot class or factory is called with seed= and rules=",
        ),
        (
            "NeedsAPath",
            BotSpecError,
            r"NeedsAPath\(\.\.\.\) raised TypeError: .*; it was called as NeedsAPath\(None\): a bot class or factory "
            r"of one parameter is given the seed",
        ),
    ],
)
def test_an_object_that_cannot_play_is_refused_before_the_first_hand_saying_what_was_expected(
    plain_bots: Path, attr: str, error: type[Exception], message: str
) -> None:
    hands: list[dict] = []
    matches = [Match("greedy", ("random",) * 3), Match(f"{plain_bots}:{attr}", ("greedy",) * 3)]
    with pytest.raises(error, match=message):
        run_matches(matches, RuleConfig(), deals=2, workers=2, progress=False, record=hands.append)
    assert hands == []


def test_an_object_that_says_its_table_size_is_refused_at_another(plain_bots: Path) -> None:
    with pytest.raises(ValueError, match=r"FourSeatsOnly cannot play this 3-player table: .* plays 4-player tables"):
        run_matches([Match(f"{plain_bots}:FourSeatsOnly", ("greedy",) * 2)], RuleConfig(n_players=3), 2, progress=False)


# ---------------------------------------------------------------- the adapter


def test_a_bot_subclass_is_used_as_it_is_and_a_plain_object_is_seated_in_an_adapter() -> None:
    subclass = Subclass()
    assert as_bot(subclass) is subclass and type(as_bot(Subclass)) is Subclass
    plain = Plain()
    bot = as_bot(plain)
    assert isinstance(bot, ActBot) and isinstance(bot, sam_env.Bot) and bot.wrapped is plain
    assert (bot.name, bot.n_players, bot.encoding_version) == ("plain", 3, 1)
    assert isinstance(as_bot(Plain), ActBot)  # a class is built, then seated
    unnamed = as_bot(type("Unnamed", (), {"act": Plain.act})(), name="my_file.py:Unnamed")
    assert unnamed.name == "my_file.py:Unnamed" and unnamed.n_players is None
    assert sam_env.load_bot(plain).wrapped is plain


def test_an_object_with_act_and_call_plays_one_decision_at_a_time_and_its_call_in_batches() -> None:
    both = ActAndCall()
    assert isinstance(as_bot(both), ActBot) and isinstance(as_bot(ActAndCall), ActBot)
    assert isinstance(as_bot(both.__call__), PolicyBot)


def test_the_adapter_copies_and_pickles_with_what_it_seats() -> None:
    bot = as_bot(Plain(), seed=None)
    for other in (copy.deepcopy(bot), pickle.loads(pickle.dumps(bot))):
        assert isinstance(other, ActBot) and isinstance(other.wrapped, Plain) and other.wrapped is not bot.wrapped
        assert other.name == "plain"


def test_reseed_seeds_random_and_numpys_global_generator_from_the_hands_seed(global_generators: None) -> None:
    bot = as_bot(Plain())
    for seed in (7, 2**40 + 7, 0):
        bot.reseed(seed)
        assert random.random() == random.Random(seed).random()
        assert np.random.random() == np.random.RandomState(seed % 2**32).random()
    as_bot(Plain(), seed=11)  # a seed given when it is seated seeds them too
    assert random.random() == random.Random(11).random()


def test_reseed_is_the_objects_own_when_it_has_one(global_generators: None) -> None:
    class Reseeds(Plain):
        def __init__(self) -> None:
            self.seeds: list[int | None] = []

        def reseed(self, seed: int | None) -> None:
            self.seeds.append(seed)

    inner = Reseeds()
    bot = as_bot(inner)
    before = random.getstate()
    bot.reseed(3)
    bot.reseed(4)
    assert inner.seeds == [3, 4] and random.getstate() == before


def test_the_probe_asks_a_plain_object_for_one_legal_decision() -> None:
    probe_bot(as_bot(Plain()), RuleConfig(n_players=3), "plain")
    with pytest.raises(ValueError, match=r"plain plays 3-player tables, not 4-player ones"):
        probe_bot(as_bot(Plain()), RuleConfig(), "plain")
