"""Deprecated since 0.4.0, removed in the next release: the shipped networks are listed by
:mod:`sam_env.agents.networks.catalogue`."""

from __future__ import annotations

from sam_env.utils.deprecation import deprecated_names

from .networks import catalogue

__getattr__ = deprecated_names(
    __name__,
    {
        "shipped_names": (catalogue.shipped_names, "sam_env.agents.networks.catalogue.shipped_names"),
        "shipped_checkpoint": (catalogue.shipped_checkpoint, "sam_env.agents.networks.catalogue.shipped_checkpoint"),
        "shipped_bot": (catalogue.shipped_bot, "sam_env.agents.networks.catalogue.shipped_bot"),
        "shipped_network_for": (catalogue.shipped_network_for, "sam_env.agents.networks.catalogue.shipped_network_for"),
        "copy_network": (catalogue.copy_network, "sam_env.agents.networks.catalogue.copy_network"),
    },
)
