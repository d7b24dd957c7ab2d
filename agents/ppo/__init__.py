"""Deprecated since 0.4.0, removed in the next release: PPO policies live in :mod:`sam_env.agents.networks.policy`.

``sam_env.agents.ppo.<module>`` is ``sam_env.agents.networks.policy.<module>``; the names that left those modules
for the shared format or the catalogue are served on the old paths with a warning naming their new place.
"""

from sam_env.utils.deprecation import redirect_moved_package

from ..networks import catalogue, format


def _policy_names() -> list[str]:
    return sorted(e.name for e in catalogue.entries() if e.kind == "policy")


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
