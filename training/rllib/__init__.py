"""Multi-agent PPO on Ray RLlib's current API stack: every seat a policy, self-play against frozen snapshots.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``); nothing else in the project imports this
package, and importing it (or its :mod:`.config`) imports no Ray, so the SB3 path runs without Ray.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any


def run(data: Mapping[str, Any], address: str | None = None) -> int:
    """Train the config ``data`` (``backend: rllib``, ``--set`` applied) on Ray; the process exit code.

    Ray is imported here, so a missing extra is one line saying how to install it, not a traceback.
    """
    try:
        from .runner import main
    except ModuleNotFoundError as err:
        print(f'error: backend: rllib needs Ray RLlib ({err}): pip install -e ".[rllib]"', file=sys.stderr)
        return 2
    return main(data, address=address)
