"""Top hot spots from py-spy's raw (collapsed) stacks, as written by ``run.py --profile DIR``.

    python benchmarks/bench/hotspots.py /tmp/prof/W1-pp-acks1-odradek-1.txt [more files] [--top 15]

Each input line is ``frame;frame;...;leaf count`` with frames ``function (file:line)``; py-spy
records only threads that were running, so a sample is CPU time. Prints, as a share of all samples:
self time by line (the leaf frame; C calls such as CRC or os.write are charged to the Python line
that made them), self time by function, and inclusive time by function (each function once per stack).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

_LINE = re.compile(r":\d+\)$")


def _function(frame: str) -> str:
    return _LINE.sub(")", frame)


def load(paths: list[Path]) -> list[tuple[list[str], int]]:
    stacks: list[tuple[list[str], int]] = []
    for path in paths:
        for line in path.read_text().splitlines():
            stack, _, count = line.rpartition(" ")
            if stack and count.isdigit():
                stacks.append((stack.split(";"), int(count)))
    return stacks


def tables(stacks: list[tuple[list[str], int]]) -> tuple[int, Counter[str], Counter[str], Counter[str]]:
    total = sum(count for _, count in stacks)
    by_line: Counter[str] = Counter()
    by_function: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    for frames, count in stacks:
        by_line[frames[-1]] += count
        by_function[_function(frames[-1])] += count
        for name in {_function(frame) for frame in frames}:
            inclusive[name] += count
    return total, by_line, by_function, inclusive


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    total, by_line, by_function, inclusive = tables(load(args.files))
    print(f"{total} samples")
    for title, counter in (("self, by line", by_line), ("self, by function", by_function),
                           ("inclusive, by function", inclusive)):  # fmt: skip
        print(f"\n{title}:")
        for name, count in counter.most_common(args.top):
            print(f"  {100 * count / total:5.1f}%  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
