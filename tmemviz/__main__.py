"""``python -m tmemviz`` runs the command-line interface."""

import sys

from tmemviz.cli import main

sys.exit(main())
