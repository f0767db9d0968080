"""Entry point of the compatibility matrix: ``python compat-tests/run.py --help``.

``--extras`` also runs, after the matrix, the differential codec test (codec-diff/run.py), Apache
Kafka's tools against both brokers (tools/run.py), the ledger (ledger.py -> docs/compatibility.md) and,
last, the odradek command line against both brokers (cli/run.py);
``--extras-only`` runs just those. The exit status is non-zero if any part failed.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness.runner import main  # noqa: E402

EXTRAS = (HERE / "codec-diff" / "run.py", HERE / "tools" / "run.py", HERE / "ledger.py", HERE / "cli" / "run.py")


def run_all(argv: list[str]) -> int:
    extras_only = "--extras-only" in argv
    wanted = "--extras" in argv or extras_only
    rest = [arg for arg in argv if arg not in ("--extras", "--extras-only")]
    status = 0 if extras_only else main(rest)
    if wanted:
        for script in EXTRAS:
            print(f"== {script.relative_to(HERE)}", flush=True)
            status |= subprocess.run([sys.executable, str(script)], check=False).returncode
    return status


if __name__ == "__main__":
    raise SystemExit(run_all(sys.argv[1:]))
