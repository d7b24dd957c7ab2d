"""Deprecated since 0.4.0, removed in the next release: Q-networks live in :mod:`sam_env.agents.networks.qnet`.

``sam_env.agents.qnet.<module>`` is ``sam_env.agents.networks.qnet.<module>``; ``checkpoint_format`` (now in the
shared format) is served on its old path with a warning. The move features are :mod:`sam_env.move_features`.
"""

from sam_env.utils.deprecation import redirect_moved_package

from ..networks import format

redirect_moved_package(
    __name__,
    "sam_env.agents.networks.qnet",
    {
        "checkpoint": {
            "checkpoint_format": (lambda: format.checkpoint_format, "sam_env.agents.networks.format.checkpoint_format")
        }
    },
)
