"""Rule facts as masks over the combination table: what the rules allow, and what may answer what.

(``sam_env.core.rule_tables`` before 0.3.0: beside :mod:`.table`, where a table is the seats that play
a sequence of hands, these are masks, and say so.)

They depend on the rules as well as on the combination table, so they live here, beside
:class:`~.rules.RuleConfig`, and not in the state machine (:mod:`.game`) or a bot: the engine's
legal moves and the heuristic's hand analysis read the same masks. Built once per config.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .combos import BEATS, DECLARE_SAM, DECLINE_SAM, LEADS, N_COMBOS, PASS, STRAIGHT_WITH_TWO
from .rules import RuleConfig


@dataclass(frozen=True)
class RuleMasks:
    """Masks that depend on the rules as well as on the combination table; built once per config.

    ``answers[t + 1]`` is what may be played on table combo ``t`` (row 0: a free lead).
    """

    allowed: np.ndarray
    """Combinations the rules allow at all (``straights_with_two`` may rule some out)."""
    answers: np.ndarray
    sam_mask: np.ndarray
    no_moves: np.ndarray


_RULE_MASKS: dict[RuleConfig, RuleMasks] = {}


def rule_masks(rules: RuleConfig) -> RuleMasks:
    """The masks of ``rules``, built on first use and shared (read-only) afterwards."""
    masks = _RULE_MASKS.get(rules)
    if masks is None:
        allowed = ~STRAIGHT_WITH_TWO if not rules.straights_with_two else np.ones(N_COMBOS, dtype=bool)
        answers = np.zeros((N_COMBOS + 1, N_COMBOS), dtype=bool)
        answers[0] = LEADS & allowed
        answers[1:] = BEATS.T & allowed
        answers[1:, PASS] = True
        sam = np.zeros(N_COMBOS, dtype=bool)
        sam[[DECLARE_SAM, DECLINE_SAM]] = True
        masks = RuleMasks(allowed, answers, sam, np.zeros(N_COMBOS, dtype=bool))
        for arr in (masks.allowed, masks.answers, masks.sam_mask, masks.no_moves):
            arr.flags.writeable = False
        _RULE_MASKS[rules] = masks
    return masks
