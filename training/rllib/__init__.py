"""Multi-agent PPO on Ray RLlib's current API stack: every seat a policy, self-play against frozen snapshots.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``); nothing else in the project imports this
package, so the SB3 path runs without Ray.
"""
