"""``python -m bnfs.cli``."""

import sys

from bnfs.cli import main

sys.exit(main())
