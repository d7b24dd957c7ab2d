"""Steps per second of random masked play: engine, AEC environment, single-agent view, RLCard Dou Dizhu.

All rows run in the same process, one after the other, with the same random policy (a uniform
pick among the legal action ids, read from a mask with ``mask.nonzero()[0]`` and from RLCard's
``legal_actions`` keys) and the same time budget, on one core. Each row plays whole hands:

* engine: ``Hand.legal_mask()`` + ``Hand.step()`` (default rules, and without Sâm: random play
  declares Sâm half the time, which ends most hands after a few moves);
* AEC: ``sam_env.env()`` (PettingZoo's order-enforcing wrapper, as users get it) in the usual
  ``agent_iter()`` / ``last()`` loop, building every observation and mask; the dead steps at the
  end of a hand (one ``step(None)`` per agent) are steps like any other, as in every AEC loop;
  also the unwrapped ``raw_env``;
* single agent: ``SingleAgentEnv`` (random opponents): learner steps/s, and decisions/s of the
  whole table underneath (learner and opponents);
* RLCard: ``rlcard.make("doudizhu")``, ``step()`` on a random legal action of ``state["legal_actions"]``
  (each step builds the next state, as RLCard users run it) — the reference.

    python benchmarks/bench_env.py [--seconds 2] [--rounds 3] [--markdown benchmarks/results.md] [--cpu 0]
    python benchmarks/bench_env.py --profile 2000   # where the AEC loop spends its time

The script restarts itself with thread pools capped at one thread; ``--cpu N`` (or
``taskset -c N``) also pins the process.
Rates are per CPU-second of the process by default (on a shared machine, elapsed time also
counts the time other programs had the core; ``--clock wall`` measures it anyway), each row's
best of ``--rounds`` interleaved rounds.
Targets: AEC ≥ 30,000 steps/s and ≥ 10× RLCard Dou Dizhu.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from bench_engine import engine_specs
from common import (
    PlayHand,
    RandomChoice,
    Spec,
    add_arguments,
    budget_of,
    measure_all,
    pin_to_cpu,
    publish,
    run_single_threaded,
    table,
)

import sam_env
from sam_env import RuleConfig, SingleAgentEnv

TARGET_DECISIONS_PER_S = 30_000
TARGET_RATIO = 10.0


def aec_play(make: Callable[[], object], seed: int) -> PlayHand:
    """One hand through the AEC loop per call (the reset for the next hand included)."""
    env = make()
    env.reset(seed=seed)
    choose = RandomChoice(seed)

    def play() -> tuple[int, int]:
        steps = decisions = 0
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                action = None
            else:
                action = choose(observation["action_mask"].nonzero()[0])
                decisions += 1
            env.step(action)
            steps += 1
        env.reset()
        return steps, decisions

    return play


def single_agent_play(rules: RuleConfig, seed: int) -> PlayHand:
    """One learner episode per call; decisions count every seat's moves in the hand."""
    env = SingleAgentEnv(rules=rules)
    env.reset(seed=seed)
    choose = RandomChoice(seed)

    def play() -> tuple[int, int]:
        steps, terminated = 0, False
        while not terminated:
            _, _, terminated, _, _ = env.step(choose(env.action_masks().nonzero()[0]))
            steps += 1
        decisions = len(env.aec.hand.history)  # hands skipped by reset (no learner move) are not counted
        env.reset()
        return steps, decisions

    return play


def rlcard_play(seed: int) -> PlayHand:
    import rlcard

    env = rlcard.make("doudizhu", config={"seed": seed})
    choose = RandomChoice(seed)

    def play() -> tuple[int, int]:
        state, _ = env.reset()
        n = 0
        while not env.is_over():
            state, _ = env.step(choose(list(state["legal_actions"])))
            n += 1
        return n, n

    return play


def profile_aec(env: object, hands: int, seed: int, top: int = 25) -> None:
    """Where the time of the AEC loop goes: cProfile of ``hands`` hands, by own time and cumulative."""
    import cProfile
    import pstats

    play = aec_play(lambda: env, seed)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(hands):
        play()
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def main(argv: list[str] | None = None) -> None:
    run_single_threaded()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--no-rlcard", action="store_true", help="skip the RLCard reference row")
    parser.add_argument(
        "--profile", type=int, metavar="HANDS", default=0, help="instead: cProfile HANDS hands of the AEC row"
    )
    args = parser.parse_args(argv)
    if args.profile:
        profile_aec(sam_env.env(rules=RuleConfig(n_players=args.players)), args.profile, args.seed)
        return
    cpus = pin_to_cpu(args.cpu)
    budget = budget_of(args)
    seed = args.seed
    rules = RuleConfig(n_players=args.players)
    no_sam = RuleConfig(n_players=args.players, allow_sam=False)

    specs = [
        *engine_specs(args.players, seed),
        Spec("AEC sam_env.env()", lambda: aec_play(lambda: sam_env.env(rules=rules), seed)),
        Spec("AEC sam_env.env(), no Sâm", lambda: aec_play(lambda: sam_env.env(rules=no_sam), seed)),
        Spec("AEC raw_env (unwrapped)", lambda: aec_play(lambda: sam_env.raw_env(rules=rules), seed)),
        Spec("single agent (SingleAgentEnv)", lambda: single_agent_play(rules, seed), "learner steps; all moves"),
    ]
    with_rlcard = not args.no_rlcard
    if with_rlcard:
        try:
            import rlcard  # noqa: F401 (only to know whether the reference row can run)
        except ImportError:
            print("rlcard is not installed (pip install rlcard): no reference row")
            with_rlcard = False
    if with_rlcard:
        specs.append(Spec("RLCard Dou Dizhu (reference)", lambda: rlcard_play(seed)))
    rows = measure_all(specs, budget)
    reference = rows[-1] if with_rlcard else None

    aec = rows[2]
    met = aec.decisions_per_s >= TARGET_DECISIONS_PER_S
    verdicts = [f"AEC ≥ {TARGET_DECISIONS_PER_S:,} decisions/s: {'met' if met else 'NOT met'}"]
    if reference is not None:
        ratio = aec.decisions_per_s / reference.decisions_per_s  # decisions: RLCard's loop has no dead steps
        met = ratio >= TARGET_RATIO
        verdicts.append(
            f"AEC ≥ {TARGET_RATIO:.0f}× RLCard in decisions/s: {'met' if met else 'NOT met'} ({ratio:.1f}×)"
        )
    targets = "Targets: " + "; ".join(verdicts) + f" ({aec.name}: {aec.decisions_per_s:,.0f} decisions/s)."
    publish("Environment speed", table(rows, reference), targets, cpus, budget, args.markdown)


if __name__ == "__main__":
    main()
