"""Run the orders example's tests against Apache Kafka instead of odradek: the same test files,
one option changed (``--kafka-bootstrap``).  Kafka is started by compat-tests' launcher (KRaft,
one node; its jars come from Maven Central into ~/.cache/odradek on first use).

    .venv/bin/python examples/orders/against_kafka.py [pytest arguments]

Tests that need the test double (faults, journal, clock) are reported as skipped.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "compat-tests"))

from harness.kafka import launch  # noqa: E402  (compat-tests is not a package on the path)


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="orders-kafka-") as tmp:
        work = Path(tmp)
        with launch(work, work / "kafka.log") as kafka:
            print(f"Apache Kafka {kafka.version} on {kafka.bootstrap}", flush=True)
            command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(HERE)]
            command += [f"--kafka-bootstrap={kafka.bootstrap}", *argv]
            return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
