"""What a language model's run of protocol v1's text tier costs, and what its intervals tell apart: docs/llm.md.

    cd benchmarks && python bench_llm_harness.py --players 4 --markdown ../docs/llm.md

**Cost.** The text tier at ``--players`` seats is played three times, in one process tree, on the same machine:

* ``openai:stand-in`` against the stand-in server answering as the heuristic (``python -m
  sam_env.agents.llm.stand_in bot:heuristic``, a real HTTP server process on loopback), with an empty reply cache:
  every decision a request, as with a model — the calls, tokens and the harness's own time per decision (the
  decision's time less its wait for the server) that a model's run would have, without the model's own time;
* the same command again: every reply from the cache (what a re-run or a resumed run costs);
* ``heuristic`` itself: the same hands with no HTTP at all (the reference of the ratio).

Times are wall-clock seconds of the whole ``sam-eval`` command (``--workers`` processes), the server's time
included in the first row. The stand-in's token counts are characters / 4, an estimate of a tokenizer's.

**What the intervals tell apart.** From the committed text-tier files in ``leaderboard/``, for each track: each
entry's headline interval, and the paired difference (over the same deals) between entries next to each other in
the table, with its 95 % interval: a difference whose interval excludes 0 is told apart on this tier.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import command_line, machine_line

from sam_env.evaluation.protocol import PLAYERS, TIERS
from sam_env.evaluation.report import write_section
from sam_env.evaluation.results import paired_headlines, read_results

ROOT = Path(__file__).resolve().parents[1]


def sam_eval(args: list[str], env: dict[str, str]) -> tuple[float, dict]:
    """Run ``sam-eval ARGS`` (writing one results file to a new folder); its wall seconds and the file."""
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "sam_env.apps.evaluate", *args, "--out", out, "--no-progress"],
            check=True,
            env=env,
            stdout=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - start
        [path] = Path(out).glob("*.results.json")
        return wall, json.loads(path.read_text())


def cost(players: int, workers: int) -> str:
    """The cost table (see the module docstring)."""
    common = ["--protocol", "v1", "--tier", "text", "--players", str(players), "--workers", str(workers)]
    server = subprocess.Popen(
        [sys.executable, "-m", "sam_env.agents.llm.stand_in", "bot:heuristic"], stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(server.stdout.readline().split()[1])  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory() as folder:
            env = {
                **os.environ,
                "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
                "SAM_ENV_LLM_CACHE": str(Path(folder) / "replies.sqlite"),
            }
            fresh = sam_eval([*common, "--candidates", "openai:stand-in"], env)
            cached = sam_eval([*common, "--candidates", "openai:stand-in"], env)
            own = sam_eval([*common, "--candidates", "heuristic"], env)
    finally:
        server.kill()
    same = fresh[1]["rows"] == own[1]["rows"] == cached[1]["rows"]
    lines = [
        "| run | wall s | decisions | calls | from the cache | prompt tokens | completion tokens | harness ms / "
        "decision | wall ms / decision | vs heuristic (wall) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    decisions = fresh[1]["agent"]["decisions"]
    for name, (wall, document) in (
        ("`openai:stand-in`, empty cache", fresh),
        ("`openai:stand-in`, again (cached)", cached),
        ("`heuristic`", own),
    ):
        a = document.get("agent")
        cells = [name, f"{wall:.1f}"]
        if a is None:
            cells += [f"{decisions:,}", "–", "–", "–", "–", "–"]
        else:
            cells += [f"{a['decisions']:,}", f"{a['calls']:,}", f"{a['cached']:,}", f"{a['prompt_tokens']:,}"]
            cells += [f"{a['completion_tokens']:,}", f"{a['harness_ms_per_decision']:.2f}"]
        cells += [f"{1000 * wall / decisions:.2f}", f"{wall / own[0]:.1f}×"]
        lines.append("| " + " | ".join(cells) + " |")
    verdict = (
        f"The three runs' rows are {'identical' if same else 'NOT identical'} (the stand-in answers as the heuristic). "
        f"{players} seats, text tier ({TIERS['text'].deals[players]} deals × {players} seatings × 3 opponents), "
        f"{workers} worker process(es), the agent's default concurrency (8 requests in flight per process), wall "
        "clock of the whole command."
    )
    return "\n".join(lines) + "\n\n" + verdict


def resolution(folder: Path) -> str:
    """The intervals table (see the module docstring) from the committed text-tier files."""
    lines = [
        "| seats | entry | headline X/hand [95% CI] | ± | next below | paired difference [95% CI] | told apart |",
        "|---:|---|---:|---:|---|---:|---|",
    ]
    for players in PLAYERS:
        paths = sorted(folder.glob(f"*.v1-{players}p-text.results.json"))
        documents = sorted((read_results(p) for p in paths), key=lambda d: -d["headline"]["score"])
        for upper, lower in zip(documents, [*documents[1:], None], strict=True):
            h = upper["headline"]
            cells = [str(players), f"`{upper['candidate']['label']}`"]
            cells += [
                f"{h['score']:+.2f} [{h['ci_low']:+.2f}, {h['ci_high']:+.2f}]",
                f"{(h['ci_high'] - h['ci_low']) / 2:.2f}",
            ]
            if lower is None:
                cells += ["–", "–", "–"]
            else:
                diff, low, high = paired_headlines(upper, lower)
                cells += [f"`{lower['candidate']['label']}`", f"{diff:+.2f} [{low:+.2f}, {high:+.2f}]"]
                cells += ["yes" if low > 0 or high < 0 else "no"]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--markdown", default=None, help="write the section of this page (docs/llm.md)")
    args = parser.parse_args()
    body = "\n\n".join(
        [
            "### What a run costs",
            cost(args.players, args.workers),
            "### What the text tier's intervals tell apart",
            resolution(ROOT / "leaderboard"),
            f"`{command_line()}` — {machine_line(shlex.quote(str(os.cpu_count())) + ' CPUs')}",
        ]
    )
    print(body)
    if args.markdown:
        write_section(args.markdown, Path(sys.argv[0]).stem, body)


if __name__ == "__main__":
    main()
