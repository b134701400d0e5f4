"""``python -m phasetodo``: the same as the ``phasetodo`` command."""

import sys

from .cli import main

sys.exit(main())
