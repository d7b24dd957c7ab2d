"""Deprecated since 0.4.0, removed in the next release: Q-networks live in :mod:`sam_env.agents.networks.qnet`."""

from sam_env.utils.deprecation import redirect_moved_package

redirect_moved_package(__name__, "sam_env.agents.networks.qnet")
