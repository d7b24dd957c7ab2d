"""The one field check behind every validated config (rules, training): a clear message or nothing.

Rules and training configs are frozen dataclasses validated on construction; both report a bad
field the same way — what it is called, what it holds, what would be allowed — so that a user who
meets one message knows how to read the other.
"""

from __future__ import annotations

import math


def is_int(value: object) -> bool:
    """An ``int`` that is not a ``bool`` (YAML's ``true`` is not a seat count)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """A finite ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def require(ok: bool, error: type[Exception], field: str, value: object, allowed: str) -> None:
    """Raise ``error("<field> = <value> is not allowed; expected <allowed>")`` unless ``ok``."""
    if not ok:
        raise error(f"{field} = {value!r} is not allowed; expected {allowed}")
