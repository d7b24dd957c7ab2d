"""Reading a mapping of options from a YAML or JSON file: rule files and training configs alike.

Kept out of :mod:`sam_env.core` (which needs nothing beyond the standard library and numpy) because
it parses YAML; kept in ``sam_env`` because both the command-line apps and the trainer read files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml


def read_mapping(path: Path, what: str, error: type[Exception] = ValueError) -> dict[str, Any]:
    """The mapping a ``.json`` file or a YAML file holds (an empty file is ``{}``).

    ``what`` names the file in messages (``"rules file"``, ``"config file"``); every problem — a
    missing file, bad syntax, something other than a mapping — raises ``error`` naming the path.
    """
    path = Path(path)
    if not path.is_file():
        raise error(f"{what} {str(path)!r} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise error(f"{what} {str(path)!r} cannot be read as UTF-8 text: {err}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError, RecursionError) as err:
        reason = "nested too deeply" if isinstance(err, RecursionError) else err
        raise error(f"{what} {str(path)!r} is not valid {path.suffix.lstrip('.') or 'YAML'}: {reason}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{what} {str(path)!r} must hold a mapping of names to values, got {data!r}")
    return data
