"""Entry point of the compatibility matrix: ``python compat-tests/run.py --help``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness.runner import main

if __name__ == "__main__":
    raise SystemExit(main())
