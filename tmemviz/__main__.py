"""``python -m tmemviz`` runs the command-line interface."""

import sys

from tmemviz.cli import main

if __name__ == "__main__":
    sys.exit(main())
