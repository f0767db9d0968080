"""Writes docs/compatibility.md, the conformance ledger: per Kafka API, what odradek advertises, what
Apache Kafka advertises, and which versions the compat suite actually exercised.

Inputs (each optional except odradek's registry; a missing one is named in the ledger):
    odradek.handlers.load_handlers().supported()   what odradek serves (and so advertises)
    report/odradek-api-versions.json               odradek's ApiVersions answer on the wire (tools/run.py)
    report/kafka-api-versions.json                 Apache Kafka's ApiVersions answer (tools/run.py)
    report/codec-diff.json                         per (message, version, direction) case counts
    report/matrix.json                             the client matrix (it does not record API versions)
    OWNERS (below)                                 which area will serve each API odradek does not serve yet

    .venv/bin/python compat-tests/ledger.py [--report-dir compat-tests/report] [--out docs/compatibility.md]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

COMPAT = Path(__file__).resolve().parent
REPO = COMPAT.parent
sys.path.insert(0, str(REPO))

from odradek.handlers import load_handlers  # noqa: E402
from odradek.wire.api import ApiKey  # noqa: E402


def _load(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


def _ranges(doc: Any) -> dict[int, tuple[int, int]] | None:
    if doc is None:
        return None
    return {int(k): (int(v[0]), int(v[1])) for k, v in doc["apis"].items()}


def _kafka_names() -> dict[int, str]:
    """API names from the message specs inside a cached kafka-clients jar, for keys odradek does not name."""
    names: dict[int, str] = {}
    for jar in sorted((Path.home() / ".cache" / "odradek").glob("kafka-*/libs/kafka-clients-*.jar"))[-1:]:
        with zipfile.ZipFile(jar) as archive:
            for entry in archive.namelist():
                if entry.startswith("common/message/") and entry.endswith("Request.json"):
                    text = archive.read(entry).decode()
                    match = re.search(r'"apiKey":\s*(\d+)', text)
                    if match:
                        names[int(match[1])] = entry.rsplit("/", 1)[1].removesuffix("Request.json")
    return names


_KAFKA_NAMES = _kafka_names()

#: The areas still being built and the Kafka APIs each will serve.  An API of the reference release
#: that odradek does not serve must be one of these; the ledger names any other as unowned.
OWNERS: dict[str, frozenset[int]] = {
    "transactions": frozenset({24, 25, 26, 27, 28, 61, 65, 66}),
    "security (SASL, ACLs, quotas, SCRAM)": frozenset({17, 29, 30, 31, 36, 48, 49, 50, 51}),
    "the new group protocols (consumer, share, streams)": frozenset(
        {68, 69, 76, 77, 78, 79, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93}
    ),
}


def owner(key: int) -> str | None:
    """The area that will serve ``key``, or None."""
    return next((area for area, keys in OWNERS.items() if key in keys), None)


def status(key: int, served: dict[int, tuple[int, int]], kafka: dict[int, tuple[int, int]] | None) -> str:
    """One API's standing against the reference release."""
    if key in served:
        if kafka is None or key not in kafka:
            return "served" if kafka is None else "served, not in the reference"
        return "served" if served[key] == kafka[key] else "served, other range"
    area = owner(key)
    return f"to come: {area}" if area else "**unowned**"


def _name(key: int) -> str:
    try:
        return ApiKey(key).name
    except ValueError:
        return _KAFKA_NAMES.get(key, f"key {key}")


def _span(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}-{high}"


def _compress(versions: list[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> '0-2, 5, 7-8'."""
    if not versions:
        return "none"
    parts: list[str] = []
    start = prev = versions[0]
    for v in versions[1:]:
        if v != prev + 1:
            parts.append(_span(start, prev))
            start = v
        prev = v
    parts.append(_span(start, prev))
    return ", ".join(parts)


def codec_coverage(doc: Any) -> dict[int, dict[str, list[int]]]:
    """api key -> {"full": versions with request and response passing both ways, no failure,
    "failed": versions with a failing case, "skipped": versions kafka-clients does not define}."""
    per: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for row in doc["results"]:
        per.setdefault((row["api_key"], row["version"]), []).append(row)
    out: dict[int, dict[str, list[int]]] = {}
    for (key, version), rows in sorted(per.items()):
        entry = out.setdefault(key, {"full": [], "failed": [], "skipped": []})
        if any(r["failed"] for r in rows):
            entry["failed"].append(version)
        elif any(r["skipped"] for r in rows):
            entry["skipped"].append(version)
        elif len(rows) == 4 and all(r["passed"] for r in rows):
            entry["full"].append(version)
    return out


def render(report_dir: Path) -> str:
    served = {key: (low, high) for key, low, high in load_handlers().supported()}
    wire = _ranges(_load(report_dir / "odradek-api-versions.json"))
    kafka_doc = _load(report_dir / "kafka-api-versions.json")
    kafka = _ranges(kafka_doc)
    codec_doc = _load(report_dir / "codec-diff.json")
    codec = codec_coverage(codec_doc) if codec_doc else None
    matrix = _load(report_dir / "matrix.json")
    kafka_label = f"Apache Kafka {kafka_doc['version']}" if kafka_doc else "Apache Kafka"
    lines = [
        "# Compatibility ledger",
        "",
        "Generated by `compat-tests/ledger.py` from the compat-tests reports; do not edit by hand.",
        "",
        "- **odradek**: the versions its handler registry serves, which is what its ApiVersions answer lists"
        + ("" if wire is None or wire == served else " (**the wire answer differs from the registry**)")
        + ".",
        f"- **{kafka_label}**: "
        + ("its ApiVersions v0 answer, captured by `compat-tests/tools/run.py`." if kafka else "not captured yet."),
        "- **codec-diff**: versions whose request and response both passed the differential codec test in both "
        "directions (kafka-clients' generated classes vs odradek's schemas, `compat-tests/codec-diff/`)"
        + (
            f", kafka-clients {codec_doc['kafka_clients']}, {codec_doc['count']} random cases each"
            if codec_doc
            else "; not run yet"
        )
        + ". *skipped*: kafka-clients does not define the version.",
        "- **matrix**: "
        + (
            "the client matrix ran ("
            + ", ".join(f"{n} {s}" for s, n in matrix["summary"].items() if n)
            + " cells); it does not record which API versions the clients "
            "negotiated, so no per-version claim is made from it."
            if matrix
            else "not run yet."
        ),
        "",
        f"| key | API | odradek | {kafka_label} | status | codec-diff exercised | codec-diff failed "
        "| codec-diff skipped |",
        "|---|---|---|---|---|---|---|---|",
    ]
    keys = sorted(set(served) | set(kafka or {}))
    for key in keys:
        ours = _span(*served[key]) if key in served else "—"
        theirs = _span(*kafka[key]) if kafka and key in kafka else ("—" if kafka else "?")
        if codec is None or key not in served:
            exercised = failed = skipped = "" if key not in served else "?"
        else:
            low, high = served[key]
            entry = codec.get(key, {"full": [], "failed": [], "skipped": []})
            exercised = _compress([v for v in entry["full"] if low <= v <= high])
            failed = _compress([v for v in entry["failed"] if low <= v <= high]).replace("none", "")
            skipped = _compress([v for v in entry["skipped"] if low <= v <= high]).replace("none", "")
        standing = status(key, served, kafka)
        lines.append(f"| {key} | {_name(key)} | {ours} | {theirs} | {standing} | {exercised} | {failed} | {skipped} |")
    if kafka:
        missing = [k for k in sorted(kafka) if k not in served]
        narrower = [
            f"{_name(k)} ({_span(*served[k])} vs {_span(*kafka[k])})"
            for k in sorted(served)
            if k in kafka and served[k] != kafka[k]
        ]
        matching = [k for k in sorted(kafka) if k in served and served[k] == kafka[k]]
        unowned = [k for k in missing if owner(k) is None]
        lines += [
            "",
            f"## Summary against {kafka_label}",
            "",
            f"- odradek serves {len(served)} of the {len(kafka)} APIs {kafka_label} advertises, "
            f"{len(matching)} with the same version range.",
            f"- Served with a different version range: {'; '.join(narrower) or 'none'}.",
            f"- Not served ({len(missing)}), each owned by an area still being built:",
        ]
        for area in OWNERS:
            keys = [k for k in missing if owner(k) == area]
            if keys:
                lines.append(f"  - {area} ({len(keys)}): {', '.join(_name(k) for k in keys)}.")
        lines.append(f"- Not served and owned by no area: {', '.join(_name(k) for k in unowned) or 'none'}.")
        extra = [k for k in sorted(served) if k not in kafka]
        if extra:
            lines.append(f"- Served by odradek but not advertised by {kafka_label}: {', '.join(map(_name, extra))}.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report-dir", type=Path, default=COMPAT / "report")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "compatibility.md")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(args.report_dir))
    print(f"ledger: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
