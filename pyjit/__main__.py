"""``python -m pyjit``: the same command line as ``pyjit``."""

import sys

from .cli import main

sys.exit(main())
