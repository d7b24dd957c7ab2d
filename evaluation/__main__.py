"""Deprecated: ``python -m evaluation`` is ``python -m apps.evaluate`` or ``sam-eval`` (removed in the next release)."""

import sys

from apps.evaluate import main
from sam_env.deprecation import warn_moved

warn_moved("evaluation.__main__", "apps.evaluate", blame_importer=False)
sys.exit(main())
