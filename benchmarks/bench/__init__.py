"""The benchmark harness behind ``make bench``: odradek measured side by side with Apache Kafka.

``benchmarks/run.py`` is the entry point; see /work/shared/guides/benchmarks.md for the method.
The broker launch pieces come from compat-tests' ``harness`` package, which is put on the import
path here (the one place that knows where it lives).
"""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
_COMPAT_TESTS = str(REPO_ROOT / "compat-tests")
if _COMPAT_TESTS not in sys.path:
    sys.path.insert(0, _COMPAT_TESTS)
