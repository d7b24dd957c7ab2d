"""Is ``ppo_search`` limited by its budget or by its model? More deals, judged in its own model.

At every searched decision of a seat-0 ``ppo_search`` against heuristic ×3 (the game follows the
bot's own 64-deal choices), the candidates are valued on 8 independent sets of 64 sampled
deals. A chooser that sees the first 1, 2 or 4 sets (64, 128, 256 deals) picks a move; the move is
then judged on the last 4 sets, which it never saw, so the gain over the network's own first choice
is an unbiased estimate *in the search's model* (its models of every seat, uniform unseen cards, or
with ``--proposals`` the deals and models its inference draws; the table in docs/results/ppo_search.md was
measured without).
If the gain barely grows with the deals, a bigger budget cannot help much, and what the bot still
leaves on the table is the model's error, not sampling noise. Writes ``search_convergence.md``.

    python experiments/search_convergence.py [--hands 80] [--seed 1] [--proposals 0]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from common import run_single_threaded
from tqdm import tqdm

import sam_env
from sam_env.agents.networks.catalogue import shipped_checkpoint
from sam_env.agents.registry import load_bot
from sam_env.agents.search import SearchBot
from sam_env.agents.search.models import shipped_search
from sam_env.evaluation.tournament import play_out

DEALS_PER_SET = 64
CANDIDATES = 8


def valued_decisions(hands: int, sets: int, seed: int, proposals: int) -> np.ndarray:
    """``float[decisions, sets, CANDIDATES]``: each searched decision's candidate values on each set
    of deals (NaN past the legal candidates and for a set none of whose deals could be replayed)."""
    models = shipped_search(4).opponent_models  # ppo_search's own models of the other seats
    bot = SearchBot(
        shipped_checkpoint("ppo"), seed, DEALS_PER_SET, CANDIDATES, opponent_models=models, proposals=proposals
    )
    heuristic = load_bot("heuristic", seed=seed)
    env, rows = sam_env.env(), []

    def choose(seat: int, observation: dict, view: sam_env.core.SeatView) -> int:
        if seat != 0:
            return heuristic.act(observation, view)
        legal = np.flatnonzero(observation["action_mask"])
        logits = bot.network.logits(observation["observation"])
        candidates = legal[np.argsort(-logits[legal], kind="stable")][:CANDIDATES]
        if candidates.size == 1:
            return int(candidates[0])
        values = np.full((sets, CANDIDATES), np.nan)
        for s in range(sets):
            values[s, : candidates.size] = bot.values(observation["observation"], view, candidates)
        rows.append(np.where(np.isfinite(values), values, np.nan))
        return int(candidates[int(np.nanargmax(values[0]))])

    for hand in tqdm(range(hands), desc="hands", unit="hand"):
        env.reset(seed=seed * 100_003 + hand)
        play_out(env, choose)
    return np.array(rows)


def judged_choices(values: np.ndarray, seen: int, judged: slice) -> tuple[np.ndarray, np.ndarray]:
    """Per decision with a usable held-out value: the candidate chosen on the first ``seen`` sets, and
    its held-out value less that of the network's first choice (candidate 0)."""
    with warnings.catch_warnings():  # a set with no replayed deal is NaN; nanmean over what is left
        warnings.simplefilter("ignore", RuntimeWarning)
        estimate = np.nanmean(values[:, :seen], axis=1)
        truth = np.nanmean(values[:, judged], axis=1)
    chosen = np.argmax(np.where(np.isfinite(estimate), estimate, -np.inf), axis=1)
    gain = truth[np.arange(len(truth)), chosen] - truth[:, 0]
    return chosen, np.nan_to_num(gain)  # NaN only where no held-out deal replayed: counted as no gain


def main() -> None:
    run_single_threaded()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=80)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--proposals", type=int, default=0, help="inference's proposed deals (ppo_search: 512)")
    parser.add_argument("--out", type=Path, default=Path("results/search_convergence"))
    args = parser.parse_args()
    sets, judged = 8, slice(4, 8)
    values = valued_decisions(args.hands, sets, args.seed, args.proposals)
    lines = [
        f"search (seat 0) vs heuristic x3, {args.hands} hands (seed {args.seed}), 4 seats, Sâm on, "
        f"{args.proposals} proposals: "
        f"{len(values)} searched decisions, moves judged on {DEALS_PER_SET * 4} held-out deals",
        "",
        "| deals seen | in-model gain over the network's move, X/decision (± 1 s.e.) | over 64 deals' choice "
        "| choice differs from 64 deals' |",
        "|---|---|---|---|",
    ]
    base_choice, base_gain = judged_choices(values, 1, judged)
    for seen in (1, 2, 4):
        chosen, gain = judged_choices(values, seen, judged)
        extra = gain - base_gain
        lines.append(
            f"| {DEALS_PER_SET * seen} | {gain.mean():+.3f} ± {gain.std() / np.sqrt(len(gain)):.3f} "
            f"| {extra.mean():+.3f} ± {extra.std() / np.sqrt(len(gain)):.3f} | {np.mean(chosen != base_choice):.0%} |"
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "search_convergence.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {args.out / 'search_convergence.md'}")


if __name__ == "__main__":
    main()
