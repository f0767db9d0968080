"""Capture what each Apache Kafka release advertises, for odradek's release emulation.

For every release line below: resolve the newest listed patch with mvn (into the compat cache,
never the repository), start it on loopback in each listed mode, ask ApiVersions over a raw
socket (probe.py), send the requests it should refuse (refusals.py), stop it, and write
``odradek/emulation/releases/<name>.json``. Afterwards the generated part of this directory's
README (what changes between consecutive releases) is rewritten from every data file checked in,
captured now or earlier.

    .venv/bin/python compat-tests/emulation/capture.py [--only 3.6,3.6-zk] [--readme-only] [--check-newest]

``--check-newest`` reads Maven Central's version list of kafka_2.13 and names every line whose
newest patch is not the one ``LINES`` tries first (and every newer line ``LINES`` lacks).

Needs java (17) and mvn on the PATH and the project's venv (make emulation-capture). One JVM
runs at a time except in ZooKeeper mode, where ZooKeeper and the broker run side by side.
"""

from __future__ import annotations

import argparse
import datetime
import re
import shutil
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

HERE = Path(__file__).resolve().parent
COMPAT = HERE.parent
ROOT = COMPAT.parent
sys.path[:0] = [str(HERE), str(COMPAT), str(ROOT)]

from datafile import DATA_DIR, Capture, write_capture  # noqa: E402
from launch import launch, resolve  # noqa: E402
from probe import api_names, api_versions  # noqa: E402
from readme import update_readme  # noqa: E402
from refusals import probe_refusals  # noqa: E402

from odradek.emulation import Mode  # noqa: E402


@dataclass(frozen=True, slots=True)
class Line:
    """One minor release line: the patches to try, newest first, and the modes to capture.

    The first mode is the line's production mode and gets the plain name (``3.6``); a second
    mode gets a suffix (``3.6-zk``)."""

    line: str
    patches: tuple[str, ...]
    modes: tuple[Mode, ...]

    def __post_init__(self) -> None:
        if len(self.modes) == 2 and self.modes[1] is not Mode.ZOOKEEPER:
            raise ValueError(f"{self.line}: only a ZooKeeper capture can be a line's second mode")

    def name(self, mode: Mode) -> str:
        return self.line if mode is self.modes[0] else f"{self.line}-zk"


ZK = (Mode.ZOOKEEPER,)
KRAFT = (Mode.KRAFT,)
BOTH = (Mode.KRAFT, Mode.ZOOKEEPER)

#: KRaft is production-ready from 3.3; ZooKeeper mode is gone from 4.0. The newest patch of each
#: line on Maven Central comes first.
LINES = (
    Line("2.8", ("2.8.2",), ZK),
    Line("3.0", ("3.0.2",), ZK),
    Line("3.1", ("3.1.2",), ZK),
    Line("3.2", ("3.2.3",), ZK),
    Line("3.3", ("3.3.2",), KRAFT),
    Line("3.4", ("3.4.1",), KRAFT),
    Line("3.5", ("3.5.2",), KRAFT),
    Line("3.6", ("3.6.2",), BOTH),
    Line("3.7", ("3.7.2",), KRAFT),
    Line("3.8", ("3.8.1",), KRAFT),
    Line("3.9", ("3.9.2",), BOTH),
    Line("4.0", ("4.0.2",), KRAFT),
    Line("4.1", ("4.1.2",), KRAFT),
    Line("4.2", ("4.2.2",), KRAFT),
    Line("4.3", ("4.3.1",), KRAFT),
    Line("4.4", ("4.4.0",), KRAFT),
)


def _resolve_newest(line: Line) -> tuple[str, Path, float]:
    """The newest patch of ``line`` that mvn resolves, its class path, and the seconds it took."""
    started = time.monotonic()
    errors = []
    for patch in line.patches:
        try:
            return patch, resolve(patch), time.monotonic() - started
        except RuntimeError as exc:
            errors.append(str(exc))
    raise RuntimeError("; ".join(errors))


def capture_line(line: Line, wanted: set[str] | None, logs: Path) -> list[str]:
    """Capture every wanted mode of ``line``; returns one summary line per capture or failure."""
    names = [line.name(mode) for mode in line.modes if wanted is None or line.name(mode) in wanted]
    if not names:
        return []
    try:
        version, libs, resolve_s = _resolve_newest(line)
        api_name = api_names(libs)
    except Exception as exc:
        return [f"{name}: FAILED to resolve: {exc}" for name in names]
    summaries = []
    for mode in line.modes:
        name = line.name(mode)
        if name not in names:
            continue
        started = time.monotonic()
        try:
            with launch(version, mode, logs / name) as running:
                answer = api_versions(running.bootstrap, wait_for_finalized=mode is Mode.KRAFT)
                refused = probe_refusals(running.bootstrap, answer.apis)
                start_s = running.start_seconds
        except Exception as exc:
            summaries.append(f"{name}: FAILED ({version} {mode}): {exc} (logs in {logs / name})")
            continue
        shutil.rmtree(logs / name, ignore_errors=True)
        capture = Capture(name, version, mode.value, datetime.date.today().isoformat(), api_name, answer, refused)
        path = write_capture(capture)
        summaries.append(
            f"{name}: {version} {mode} resolved in {resolve_s:.1f}s, ready in {start_s:.1f}s, "
            f"captured and stopped in {time.monotonic() - started:.1f}s: "
            f"{len(answer.apis)} APIs, ApiVersions v{answer.api_versions_version} -> {path.relative_to(ROOT)}"
        )
        resolve_s = 0.0
    return summaries


MAVEN_METADATA = "https://repo1.maven.org/maven2/org/apache/kafka/kafka_2.13/maven-metadata.xml"


def check_newest() -> list[str]:
    """Lines where Maven Central has a newer patch than ``LINES`` tries first, and lines missing."""
    with urllib.request.urlopen(MAVEN_METADATA, timeout=30) as response:
        root = ElementTree.fromstring(response.read())
    newest: dict[str, tuple[int, ...]] = {}
    for element in root.iter("version"):
        text = element.text or ""
        if re.fullmatch(r"\d+\.\d+\.\d+", text):
            parts = tuple(int(p) for p in text.split("."))
            line = f"{parts[0]}.{parts[1]}"
            newest[line] = max(newest.get(line, parts), parts)
    pinned = {line.line: tuple(int(p) for p in line.patches[0].split(".")) for line in LINES}
    oldest = min(pinned.values())
    notes = []
    for line, parts in sorted(newest.items(), key=lambda item: item[1]):
        if parts < oldest:
            continue
        if line not in pinned:
            notes.append(f"{line}: not in LINES; newest on Maven Central is {'.'.join(map(str, parts))}")
        elif parts > pinned[line]:
            notes.append(f"{line}: Maven Central has {'.'.join(map(str, parts))}, LINES tries {line} first at "
                         f"{'.'.join(map(str, pinned[line]))}")  # fmt: skip
    return notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated capture names (e.g. 3.6,3.6-zk); default: all")
    parser.add_argument("--readme-only", action="store_true", help="only regenerate the README table")
    parser.add_argument(
        "--check-newest", action="store_true", help="only compare LINES with Maven Central's list of releases"
    )
    args = parser.parse_args()
    if args.check_newest:
        notes = check_newest()
        print("\n".join(notes) if notes else "LINES lists the newest patch of every line on Maven Central")
        return 1 if notes else 0
    wanted = set(args.only.split(",")) if args.only else None
    known = {line.name(mode) for line in LINES for mode in line.modes}
    if wanted is not None and not wanted <= known:
        parser.error(f"unknown capture names {sorted(wanted - known)}; known: {', '.join(sorted(known))}")
    failures = 0
    if not args.readme_only:
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        logs = Path(tempfile.mkdtemp(prefix="odradek-emulation-"))
        for line in LINES:
            for summary in capture_line(line, wanted, logs):
                failures += "FAILED" in summary
                print(summary, flush=True)
        if not any(logs.iterdir()):
            logs.rmdir()
    update_readme(HERE / "README.md")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
