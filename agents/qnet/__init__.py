"""Deprecated since 0.4.0, removed in the next release: Q-networks live in :mod:`sam_env.agents.networks.qnet`.

``sam_env.agents.qnet.<module>`` is ``sam_env.agents.networks.qnet.<module>``; the names that left those modules for
the shared format and layers are served on their old paths with a warning, and ``features`` is
:mod:`sam_env.move_features`.
"""

from sam_env.utils.deprecation import redirect_moved_package

from ..networks import format, layers

_FORMAT = "sam_env.agents.networks.format"
redirect_moved_package(
    __name__,
    "sam_env.agents.networks.qnet",
    {
        "checkpoint": {
            **{
                name: (lambda name=name: getattr(format, name), f"{_FORMAT}.{name}")
                for name in ("CheckpointError", "checkpoint_files", "read_metadata", "write_checkpoint")
            },
            "check_table": (lambda: format.check_seat_count, f"{_FORMAT}.check_seat_count"),
        },
        "bot": {"ACTIVATIONS": (lambda: layers.ACTIVATIONS, "sam_env.agents.networks.layers.ACTIVATIONS")},
    },
    {"features": "sam_env.move_features"},
)
