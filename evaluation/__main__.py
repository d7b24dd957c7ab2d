"""``python -m evaluation``: see :mod:`evaluation.cli`."""

import sys

from .cli import main

sys.exit(main())
