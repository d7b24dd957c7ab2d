"""Legal moves only: logits with every illegal action pushed out of the softmax (the trainers' losses, sampling)."""

from __future__ import annotations

import torch

MASKED_LOGIT = -1e8
"""The logit of an illegal action (SB3's ``MaskableCategorical`` uses the same value)."""


def masked(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with every illegal action pushed to :data:`MASKED_LOGIT`."""
    return torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))
