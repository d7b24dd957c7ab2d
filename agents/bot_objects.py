"""Anything that plays, as a :class:`sam_env.Bot`: your own classes, factories, instances and batched policies.

:func:`as_bot` accepts

* a :class:`~sam_env.Bot` subclass, or any class with an ``act(observation, view)`` method, or a factory
  function returning a bot: called with ``seed=`` and ``rules=`` where its signature takes them;
* a bot instance, or any object with an ``act(observation, view)`` method;
* a batched policy (:class:`sam_env.BatchedPolicy`): ``policy(observations, masks) -> actions`` on
  ``float32[k, obs_dim]`` observations and ``bool[k, 201]`` masks — a function of two positional
  parameters, a callable object (a ``torch.nn.Module``, for one), or a class of them (built like a
  bot class). It is wrapped in a :class:`PolicyBot`, which the tournament asks for a whole batch of
  decisions at once (:mod:`sam_env.evaluation.lockstep`), and everything else for one decision.

A bot that derives from :class:`~sam_env.Bot` is used as it is. An object that only has ``act`` (``Bot``'s
``isinstance`` check accepts it) lacks what the evaluation calls besides (``reseed`` before every hand, a
``name``), so it is seated in an :class:`ActBot`, which adds them. An object with both ``act`` and ``__call__``
plays one decision at a time through ``act``; pass its ``__call__`` to have it played in batches.

:class:`PickledBot` carries an object to worker processes (classes and functions by reference,
instances by value); :func:`probe_bot` asks a bot for one decision of the table, so that a bot that
cannot play it is refused before any hand.
"""

from __future__ import annotations

import inspect
import pickle
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from sam_env.bot import Bot, table_encoding_version
from sam_env.concurrent_bot import ConcurrentBot
from sam_env.core import RuleConfig, SeatView
from sam_env.encoding import ENCODING_VERSION, N_ACTIONS, action_name

from .code_specs import BotSpecError

EXPECTED = (
    "a sam_env.Bot subclass or instance (anything with act(observation, view) -> action), a factory returning one "
    "(called with seed= and rules= where it takes them), or a batched policy (observations, masks) -> actions"
)
ACT_EXPECTED = "act(observation, view) returning a legal action index (an int where observation['action_mask'] is 1)"
"""What a bot that plays one decision at a time must answer (the refusals before play say so)."""
BATCH_EXPECTED = "policy(observations, masks) returning one legal action index per row (int[k] for k rows)"
"""What a batched policy must answer."""


class PolicyBot(Bot):
    """A batched policy seated as a bot.

    ``act`` asks the policy for a batch of one; :meth:`decide` for many (the tournament plays every
    hand of a group in lockstep and asks once per round). Each answer is checked: one legal action
    index per row. :meth:`reseed` restarts the policy's own generator too when it has a ``reseed``.
    """

    def __init__(self, policy: Callable[[np.ndarray, np.ndarray], object], name: str | None = None) -> None:
        super().__init__(None)
        self.policy = policy
        self.name = name or object_label(policy)

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        if callable(getattr(self.policy, "reseed", None)):
            self.policy.reseed(seed)

    def decide(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``int64[k]``: the policy's actions for ``k`` rows; ``ValueError`` naming the first bad row.

        The policy gets what :class:`sam_env.VectorEnv` gives: ``float32[k, obs_dim]`` and ``bool[k, 201]``
        (the AEC environment's masks are int8)."""
        observations = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.ascontiguousarray(masks, dtype=bool)
        raw = self.policy(observations, masks)
        if hasattr(raw, "detach"):  # a torch tensor: the usual return of a network's forward
            raw = raw.detach().cpu().numpy()
        actions = np.asarray(raw)
        if actions.shape != (len(masks),) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"{self.name}: a batched policy returns one integer action per row, int[{len(masks)}]; "
                f"got {actions.dtype}{list(actions.shape)} for {len(masks)} rows"
            )
        actions = actions.astype(np.int64, copy=False)
        inside = (actions >= 0) & (actions < masks.shape[1])
        legal = inside & masks[np.arange(len(masks)), np.clip(actions, 0, masks.shape[1] - 1)]
        if not legal.all():
            row = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(self.name, int(actions[row]), np.flatnonzero(masks[row]).tolist(), row)
        return actions

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        return int(self.decide(observation["observation"][None], observation["action_mask"][None])[0])

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """A policy bot is a batched policy itself (checked), wherever one is taken (a trainer's opponents)."""
        return self.decide(observations, masks)


def plays_in_lockstep(bot: object) -> bool:
    """Whether an evaluation plays ``bot``'s hands in lockstep groups and asks it for all their decisions at once:
    a batched policy (:class:`PolicyBot`) or a :class:`~sam_env.concurrent_bot.ConcurrentBot`. One instance serves every
    table of a group."""
    return isinstance(bot, (PolicyBot, ConcurrentBot))


class ActBot(Bot):
    """An object with ``act(observation, view)`` that does not derive from :class:`~sam_env.Bot`, seated as a bot.

    ``act`` is the object's own (``wrapped``); ``name``, ``encoding_version`` and ``n_players`` are read from it
    where it has them, which is all the evaluation reads from a bot besides ``act`` and ``reseed``.

    Seeding, before every hand (:meth:`reseed`, with a seed made from the deal, the seating and the seat): an
    object with a ``reseed(seed)`` method of its own is reseeded through it, as a ``Bot`` is. Any other object is
    taken to draw from the process's generators, as a first bot does (``random.choice``, ``np.random.choice``):
    the adapter seeds Python's ``random`` module and numpy's legacy global generator (``np.random.seed``) from
    the hand's seed, so its results are reproducible and do not depend on the number of worker processes. These
    generators are shared by everything in the process: two such bots at one table, or the hands a match with a
    batched policy plays at once (in lockstep), draw from one stream in turn — reproducibly still, but a hand's
    draws then depend on the others'. A bot with a generator of its own (``np.random.default_rng()``,
    ``random.Random()``, torch's) defines ``reseed(seed)`` to restart it.
    """

    def __init__(self, wrapped: object, name: str | None = None, seed: int | None = None) -> None:
        super().__init__(seed)
        self.wrapped = wrapped
        own = getattr(wrapped, "name", None)
        self.name = own if isinstance(own, str) and own != Bot.name else (name or object_label(wrapped))
        if seed is not None and not self.reseeds_itself:
            seed_global_generators(seed)

    @property
    def reseeds_itself(self) -> bool:
        """Whether the wrapped object has a ``reseed`` method (then the process's generators are left alone)."""
        return callable(getattr(self.wrapped, "reseed", None))

    @property
    def encoding_version(self) -> int:  # type: ignore[override]  # read from the object, as it may change it
        return int(getattr(self.wrapped, "encoding_version", ENCODING_VERSION))

    @property
    def n_players(self) -> int | None:
        """The table size the object says it plays (``n_players``), None when it does not say."""
        return getattr(self.wrapped, "n_players", None)

    def reseed(self, seed: int | None) -> None:
        super().reseed(seed)
        if self.reseeds_itself:
            self.wrapped.reseed(seed)  # type: ignore[attr-defined]
        else:
            seed_global_generators(seed)

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        return self.wrapped.act(observation, view)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"ActBot({object_label(self.wrapped)}, name={self.name!r})"


def seed_global_generators(seed: int | None) -> None:
    """Seed Python's ``random`` module and numpy's legacy global generator from ``seed`` (numpy's takes the
    seed modulo ``2**32``, the most its legacy seeding accepts; None draws fresh entropy for both)."""
    random.seed(seed)
    np.random.seed(None if seed is None else seed % 2**32)


def derives_from_bot(obj: object) -> bool:
    """Whether ``obj`` is an instance of a real :class:`~sam_env.Bot` subclass, not one that ``Bot``'s
    ``isinstance`` check accepts for its ``act`` method alone."""
    return Bot in type(obj).__mro__


class IllegalActionError(ValueError):
    """A bot chose an action its mask does not allow (or no action index at all)."""

    def __init__(self, bot: str, action: object, legal: list[int], row: int | None = None) -> None:
        self.action, self.legal, self.row = action, legal, row
        names = ", ".join(f"{a} {action_name(a)}" for a in legal)
        where = "" if row is None else f" (row {row} of its batch)"
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool):
            super().__init__(
                f"{bot} answered {action!r:.80}{where}, which is not an action index; expected an int, one of the "
                f"legal moves: {names}"
            )
            return
        named = 0 <= action < N_ACTIONS
        chosen = f"{action} {action_name(int(action))}" if named else str(action)
        super().__init__(f"{bot} chose the illegal action {chosen}{where}; legal moves: {names}")


@dataclass(frozen=True)
class PickledBot:
    """An object given in place of a spec (a class, a factory, an instance), pickled so that worker
    processes can rebuild it; ``label``: its name in reports."""

    label: str
    payload: bytes

    def load(self) -> object:
        try:
            return pickle.loads(self.payload)
        except Exception as err:  # whatever unpickling raises, the fix is the same
            raise BotSpecError(
                f"bot {self.label!r} cannot be rebuilt in this process: {type(err).__name__}: {err}. Name it by a "
                "spec ('package.module:attr' or 'path/to/file.py:attr') or evaluate with workers=1"
            ) from err


def pickled(obj: object, label: str) -> PickledBot | None:
    """``obj`` as a :class:`PickledBot`, or None when it does not pickle (a lambda, a closure, a lock)."""
    try:
        return PickledBot(label, pickle.dumps(obj))
    except Exception:  # pickle raises many kinds of errors for what it cannot carry
        return None


def as_bot(obj: object, seed: int | None = None, rules: RuleConfig | None = None, name: str | None = None) -> Bot:
    """A bot from a class, factory, instance or batched policy (see the module docstring);
    :class:`~.code_specs.BotSpecError` naming what was expected for anything else.

    A :class:`~sam_env.Bot` subclass's instance is returned as it is (the same object), an object with ``act``
    alone in an :class:`ActBot` (given ``seed``: see there), a batched policy in a :class:`PolicyBot`."""
    label = name or object_label(obj)
    if isinstance(obj, type):
        if not (issubclass(obj, Bot) or any("__call__" in vars(base) for base in obj.__mro__[:-1])):
            raise BotSpecError(f"{label}: class {obj.__qualname__} is not a bot; expected {EXPECTED}")
        return _as_built(_call_factory(obj, seed, rules, label), label, obj, seed)
    if isinstance(obj, Bot):
        return obj if derives_from_bot(obj) else ActBot(obj, label, seed)
    if not callable(obj):
        raise BotSpecError(f"{label}: {type(obj).__name__} {obj!r:.80} is not a bot; expected {EXPECTED}")
    if _is_batched_signature(obj):
        return PolicyBot(obj, label)
    return _as_built(_call_factory(obj, seed, rules, label), label, obj, seed)


def _as_built(built: object, label: str, maker: object, seed: int | None) -> Bot:
    """What a class or factory returned, as a bot (an object with ``act`` alone and a batched policy are wrapped)."""
    if isinstance(built, Bot):
        if not derives_from_bot(built):
            return ActBot(built, label, seed)
        if name_given_by_class(built):
            built.name = label
        return built
    if callable(built):
        return PolicyBot(built, label)
    raise BotSpecError(
        f"{label}: {object_label(maker)} returned {type(built).__name__} {built!r:.80}, which is not a bot; "
        f"expected {EXPECTED}"
    )


def name_given_by_class(bot: Bot) -> bool:
    """Whether a bot's name is only the default of ``sam_env.Bot`` (then the spec names it in reports)."""
    return getattr(bot, "name", "bot") == "bot"


def _call_factory(factory: Callable[..., object], seed: int | None, rules: RuleConfig | None, label: str) -> object:
    """Call a class or factory with ``seed=`` and ``rules=`` where its signature takes them."""
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # no signature to read (some builtins): call it plainly
        parameters = {}
    open_keywords = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    kwargs = {k: v for k, v in (("seed", seed), ("rules", rules)) if k in parameters or open_keywords}
    missing = [
        p.name
        for p in parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        and p.name not in kwargs
    ]
    args: tuple[object, ...] = ()
    if len(missing) == 1 and "seed" not in kwargs:  # the registry's own form: a factory ``seed -> Bot``
        args, missing = (seed,), []
    if missing:
        raise BotSpecError(
            f"{label}: {object_label(factory)} requires {', '.join(map(repr, missing))}; a bot class or factory is "
            "called with seed= and rules= (where it takes them), or with the seed alone, and nothing else"
        )
    try:
        return factory(*args, **kwargs)
    except BotSpecError:
        raise
    except Exception as err:  # a factory that refuses (e.g. another table size) says why
        how = (
            f"; it was called as {object_label(factory)}({seed!r}): a bot class or factory of one parameter is "
            "given the seed; one of more parameters, seed= and rules= (where it takes them) and nothing else"
            if args
            else ""
        )
        raise BotSpecError(f"{label}: {object_label(factory)}(...) raised {type(err).__name__}: {err}{how}") from err


def _is_batched_signature(fn: Callable[..., object]) -> bool:
    """A function of two positional parameters (not named seed/rules) is a batched policy; anything
    callable that is not a plain function (a ``torch.nn.Module``, a ``BatchedHeuristic``) is one too."""
    if not (inspect.isfunction(fn) or inspect.ismethod(fn) or hasattr(fn, "func")):  # partials have .func
        return True
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.name in ("seed", "rules") for p in parameters):
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def object_label(obj: object) -> str:
    """An object's name in reports: a bot's (or bot class's) own ``name``, else its class's or function's name."""
    name = getattr(obj, "name", None)
    is_bot = isinstance(obj, Bot) or (isinstance(obj, type) and issubclass(obj, Bot))
    if is_bot and isinstance(name, str) and name != "bot":
        return name
    for attr in ("__name__", "__qualname__"):
        if isinstance(getattr(obj, attr, None), str):
            return getattr(obj, attr)
    return type(obj).__name__


def probe_bot(bot: Bot, rules: RuleConfig, label: str) -> None:
    """Ask ``bot`` for the first decision of a hand of this table (a batch of two for a batched
    policy); ``ValueError`` naming the bot and the table if it refuses it, raises, or answers an
    illegal move. What every bot from code is put through before a hand is played."""
    import sam_env

    n_players = getattr(bot, "n_players", None)
    if isinstance(n_players, int) and not isinstance(n_players, bool) and n_players != rules.n_players:
        raise ValueError(f"{label} plays {n_players}-player tables, not {rules.n_players}-player ones")
    env = sam_env.env(rules=rules, encoding_version=table_encoding_version([bot]))
    env.reset(seed=0)
    observation = env.last()[0]
    view = env.unwrapped.seat_view(env.agent_selection)
    try:
        if isinstance(bot, PolicyBot):
            rows = np.repeat(observation["observation"][None], 2, 0)
            bot.decide(rows, np.repeat(observation["action_mask"][None], 2, 0))
        else:
            action = bot.act(observation, view)
            check_action(label, action, observation["action_mask"])
    except IllegalActionError:
        raise
    except Exception as err:  # whatever the bot raises is why it cannot play this table
        expected = BATCH_EXPECTED if isinstance(bot, PolicyBot) else ACT_EXPECTED
        raise ValueError(
            f"{label} failed on the first decision of a {rules.n_players}-player hand "
            f"(observation float32[{observation['observation'].shape[0]}]): {type(err).__name__}: {err}; "
            f"expected {expected}"
        ) from err


def check_action(label: str, action: object, mask: np.ndarray) -> int:
    """``action`` as an int if it is a legal index of ``mask``; else :class:`IllegalActionError`."""
    try:
        index = int(action)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        raise IllegalActionError(label, action, np.flatnonzero(mask).tolist()) from None
    if index != action or not 0 <= index < len(mask) or not mask[index]:
        raise IllegalActionError(label, action, np.flatnonzero(mask).tolist())
    return index
