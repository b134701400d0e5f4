"""``python -m phasetodo.cli``: the same as the ``phasetodo`` command."""

import sys

from . import main

sys.exit(main())
