"""Deprecated since 0.4.0, removed in the next release: PPO policies live in :mod:`sam_env.agents.networks.policy`.

``sam_env.agents.ppo.<module>`` is ``sam_env.agents.networks.policy.<module>``; the names that left those modules
for the shared format or the catalogue are served on the old paths with a warning naming their new place, and so is
``PPOBot.pretrained`` (0.3's only way to a shipped policy by name).
"""

from __future__ import annotations

from sam_env.utils.deprecation import redirect_moved_package, warn_deprecated

from ..networks import catalogue, format
from ..networks.policy.bot import PPOBot


def _policy_names() -> list[str]:
    """0.3's list: the shipped policies by their names and their old names."""
    return sorted(name for e in catalogue.entries() if e.kind == "policy" for name in (e.name, *e.aliases))


def _pretrained(
    cls: type[PPOBot],
    name: str = "ppo",
    seed: int | None = None,
    deterministic: bool = True,
    *,
    label: str | None = None,
) -> PPOBot:
    warn_deprecated("PPOBot.pretrained", "sam_env.load_bot(name) or sam_env.agents.networks.catalogue.shipped_bot")
    return cls(catalogue.shipped_checkpoint(name), seed=seed, deterministic=deterministic, name=label or name)


_FORMAT = "sam_env.agents.networks.format"
_CATALOGUE = "sam_env.agents.networks.catalogue"
redirect_moved_package(
    __name__,
    "sam_env.agents.networks.policy",
    {
        "bot": {
            "PRETRAINED_DIR": (lambda: catalogue.SHIPPED_DIR, f"{_CATALOGUE}.SHIPPED_DIR"),
            "pretrained_names": (lambda: _policy_names, f"{_CATALOGUE}.entries"),
            "pretrained_checkpoint": (lambda: catalogue.shipped_checkpoint, f"{_CATALOGUE}.shipped_checkpoint"),
        },
        "checkpoint": {
            **{
                name: (lambda name=name: getattr(format, name), f"{_FORMAT}.{name}")
                for name in (
                    "is_checkpoint_path",
                    "save_weights",
                    "write_checkpoint",
                    "read_weights",
                    "check_tensor_shapes",
                )
            },
            "check_table": (lambda: format.check_seat_count, f"{_FORMAT}.check_seat_count"),
            "copy_policy": (lambda: catalogue.copy_network, f"{_CATALOGUE}.copy_network"),
        },
    },
)
PPOBot.pretrained = classmethod(_pretrained)  # type: ignore[attr-defined]
