"""Build the opt-in mypyc-compiled odradek: an overlay tree beside the pure-Python sources.

``build/compiled/`` (``--out``) receives a copy of the whole ``odradek`` package (every file, so the
package is complete), and the hot modules of `COMPILED_MODULES` are compiled in it by mypyc: each
module's extension sits beside its ``.py``, and mypyc's shared library (``*__mypyc.*.so``) at the
overlay's top.  Nothing is ever written under ``odradek/``: the source tree stays pure Python, and
``pip install`` installs it as such.  Run the compiled build with the overlay first on the path and
the current directory off it (``python -m`` would otherwise put a checkout's ``odradek/`` first):

    PYTHONSAFEPATH=1 PYTHONPATH=build/compiled python -m odradek run ...

The build is skipped, with one line, when the overlay already matches the sources: a digest of every
file of the package, the module list, the interpreter and mypy's version is kept in the overlay.

Which modules may be compiled: an interpreted class cannot subclass a compiled one, so a module
whose classes tests or other interpreted modules subclass stays interpreted (`storage.filesystem`),
and a compiled class's subclasses are compiled with it (`storage.index_file` with the offset and
time indexes).  A compiled module defines no runtime-checkable protocol.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import mypy.version

REPO_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "odradek"
DEFAULT_OUT = REPO_ROOT / "build" / "compiled"
STAMP_NAME = ".source-digest"

#: The request path of a one-record Produce and of a Fetch: the connection and its writes, framing,
#: the dispatcher, the fast produce and fetch paths, the partition, and the log below it.
COMPILED_MODULES = (
    "odradek.server.zerocopy",
    "odradek.server.connection",
    "odradek.server.backpressure",
    "odradek.wire.framing",
    "odradek.wire.primitives",
    "odradek.wire.fetch_fast",
    "odradek.wire.produce_fast",
    "odradek.handlers.fetch",
    "odradek.handlers.dispatch",
    "odradek.handlers.fetch_now",
    "odradek.handlers.frames",
    "odradek.handlers.produce_fast",
    "odradek.storage.segment",
    "odradek.storage.segment_files",
    "odradek.storage.segment_reads",
    "odradek.storage.index_file",
    "odradek.storage.offset_index",
    "odradek.storage.time_index",
    "odradek.storage.committed_reads",
    "odradek.storage.partition_log",
    "odradek.storage.region",
    "odradek.partition.partition",
    "odradek.partition.service",
)


def module_path(module: str) -> Path:
    """The source file of ``module``, relative to the directory that holds the package."""
    return Path(*module.split(".")).with_suffix(".py")


def _package_files(source_root: Path) -> list[Path]:
    """Every file of the package under ``source_root`` except bytecode, in a stable order."""
    package = source_root / PACKAGE
    return sorted(
        path
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".so")
    )


def source_digest(source_root: Path, modules: Iterable[str] = COMPILED_MODULES) -> str:
    """What the overlay is built from: the package's files (paths and bytes), the modules compiled,
    the interpreter and mypy(c)'s version.  Equal digests mean an equal overlay."""
    digest = hashlib.sha256()
    for part in (sys.version, mypy.version.__version__, *modules):
        digest.update(part.encode() + b"\0")
    for path in _package_files(source_root):
        digest.update(str(path.relative_to(source_root)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def is_up_to_date(out: Path, digest: str) -> bool:
    stamp = out / STAMP_NAME
    return stamp.is_file() and stamp.read_text().strip() == digest


def _copy_package(source_root: Path, out: Path) -> None:
    shutil.copytree(
        source_root / PACKAGE,
        out / PACKAGE,
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"),
    )


def _compile(out: Path, modules: Iterable[str], work: Path) -> None:
    """mypyc, run in ``out`` so that it puts the extensions beside their sources and its shared
    library at the top; its C sources and objects go to ``work``.  The project's mypy settings apply
    (mypyc type-checks what it compiles, and refuses to compile code with type errors)."""
    files = [str(module_path(module)) for module in modules]
    args = ["--config-file", str(REPO_ROOT / "pyproject.toml"), "--cache-dir", str(work / "mypy-cache"), *files]
    setup = (
        "import sys\n"
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        f"sys.argv = ['setup.py', '-q', 'build_ext', '--inplace', '--build-temp', {str(work / 'temp')!r},"
        f" '--build-lib', {str(work / 'lib')!r}]\n"
        f"setup(name='odradek-compiled', ext_modules=mypycify({args!r}, opt_level='3', target_dir={str(work)!r}))\n"
    )
    subprocess.run([sys.executable, "-c", setup], cwd=out, check=True)


def build(out: Path = DEFAULT_OUT, source_root: Path = REPO_ROOT, modules: Iterable[str] = COMPILED_MODULES) -> bool:
    """Build the overlay at ``out`` unless it is up to date; True when it was (re)built."""
    modules = tuple(modules)
    digest = source_digest(source_root, modules)
    if is_up_to_date(out, digest):
        print(f"{out} is up to date with {source_root / PACKAGE} ({len(modules)} modules compiled)")
        return False
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    try:
        _copy_package(source_root, out)
        with tempfile.TemporaryDirectory(prefix="mypyc-", dir=out.parent) as work:
            _compile(out, modules, Path(work))
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)  # no half-built overlay: `make run` falls back to the sources
        raise
    (out / STAMP_NAME).write_text(digest + "\n")
    print(f"{out}: {len(modules)} modules compiled with mypyc {mypy.version.__version__}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the overlay tree (default: build/compiled)")
    parser.add_argument("--list", action="store_true", help="print the compiled modules and exit")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(COMPILED_MODULES))
        return 0
    try:
        build(args.out.resolve())
    except subprocess.CalledProcessError as exc:
        print(f"{Path(__file__).name}: mypyc could not build {args.out} (exit {exc.returncode}; its output is above)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
