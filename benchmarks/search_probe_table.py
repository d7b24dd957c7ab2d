"""The search-probe table of docs/results/exploitability.md, from the records of ``sam-exploit --probe search --out``.

    sam-exploit --bot ppo --probe search --deals 500 --out results/exploit_search/ppo.json   # one per network
    cd benchmarks && python search_probe_table.py ../results/exploit_search/*.json \\
        --markdown ../docs/results/exploitability.md

One row per record (the network, its seats, the search's budget, its margin against ``n - 1`` copies of the
network in duplicate with the 95 % interval over deals, the run's wall time), beside the largest margin that a
10M-step PPO best response found against the same network, read off the page's PPO table (``exploit_table``).
Nothing is measured here: the records are the measurements. ``--markdown`` rewrites this script's section of
the page (``<!-- search_probe:start -->`` …) from the records given, so pass every record of the table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sam_env.evaluation.exploitability import page_rows
from sam_env.evaluation.report import write_section
from sam_env.evaluation.search_probe import SECTION, ProbeRow, probe_table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+", type=Path, help="JSON records of sam-exploit --probe search --out")
    parser.add_argument("--markdown", default=None, help="the page whose search_probe section is rewritten")
    args = parser.parse_args()
    probes = [ProbeRow.from_record(json.loads(path.read_text(encoding="utf-8"))) for path in args.records]
    table = probe_table(probes, page_rows(args.markdown) if args.markdown else [])
    print(table)
    if args.markdown:
        write_section(args.markdown, SECTION, table)


if __name__ == "__main__":
    main()
