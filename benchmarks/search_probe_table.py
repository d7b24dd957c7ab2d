"""The search-probe table of docs/results/exploitability.md, from the records of ``sam-exploit --probe search --out``.

    sam-exploit --bot ppo --probe search --deals 500 --out results/exploit_search/ppo.json   # one per network
    cd benchmarks && python search_probe_table.py ../results/exploit_search/*.json \\
        --markdown ../docs/results/exploitability.md

One row per record (the network, its seats, the search's budget, its margin against ``n - 1`` copies of the
network in duplicate with the 95 % interval over deals, the run's wall time), beside the largest margin that a
10M-step PPO best response found against the same network, read off the page's PPO table (``exploit_table``).
Nothing is measured here: the records are the measurements. ``--markdown`` rewrites this script's section of
the page (``<!-- search_probe:start -->`` …). The page keeps its measurements: a probe already there stays
unless a record of the same bot and seats replaces it, so a new probe adds its row without the records of
earlier ones (``results/`` is not kept in the repository). ``--replace`` drops the old rows instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sam_env.evaluation.exploitability import merged, page_rows
from sam_env.evaluation.report import write_section
from sam_env.evaluation.search_probe import SECTION, ProbeRow, probe_page_rows, probe_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+", type=Path, help="JSON records of sam-exploit --probe search --out")
    parser.add_argument("--markdown", default=None, help="the page whose search_probe section is rewritten")
    parser.add_argument("--replace", action="store_true", help="drop the page's probes that no record replaces")
    args = parser.parse_args()
    probes = [ProbeRow.from_record(json.loads(path.read_text(encoding="utf-8"))) for path in args.records]
    old = probe_page_rows(args.markdown) if args.markdown and not args.replace else []
    try:
        rows, replaced = merged(old, probes)
    except ValueError as err:
        parser.error(str(err))
    for row in replaced:
        print(f"replacing the page's row: {row.line()}", file=sys.stderr)
    table = probe_table(rows, page_rows(args.markdown) if args.markdown else [])
    print(table)
    if args.markdown:
        write_section(args.markdown, SECTION, table)


if __name__ == "__main__":
    main()
