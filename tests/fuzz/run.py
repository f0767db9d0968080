"""Coverage-guided fuzzing of one decoder family with atheris (libFuzzer for Python).

    python -m tests.fuzz.run FAMILY [--work DIR] [libFuzzer flags, e.g. -runs=1000000 -seed=1]

odradek's modules are instrumented as they are imported, and so is the code the codec generates
at run time: every message and version is compiled by running the seeds once before fuzzing, then
each generated decoder gets the same instrumentation.  The run starts from the generated seeds,
the captured corpus and the regressions (`tests.fuzz.seeds`); inputs that reach new coverage go to
``DIR/FAMILY/corpus`` (kept between runs), and a crash is written to ``DIR/FAMILY/crash-<sha1>``
with its traceback on stderr, and the run exits non-zero.  libFuzzer ends the process itself;
`tests.fuzz.campaign` runs families in child processes and reads their status lines.

Since libFuzzer ends the process (after ``-runs`` as after a crash), nothing after
``atheris.Fuzz`` runs, not even a ``finally`` or an ``atexit`` handler.  So the run's temporary
files (the seed directory, the SASL family's JWKS file) go to ``DIR/FAMILY/tmp`` instead of the
system's temporary directory: the next run of the family empties it first, and the campaign
removes it once the run has ended, however it ended.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import tempfile
import types
from pathlib import Path

import atheris

# The SASL family also instruments the libraries that parse the mechanisms' messages and tokens.
_INSTRUMENTED = (
    "odradek.wire",
    "odradek.partition.produce_checks",
    "odradek.storage.validator",
    "odradek.security.sasl",
    "scramp",
    "jwt",
)
_GENERATED_CODEC = "<odradek.wire.codegen"


def _instrument_generated_code() -> int:
    """Instrument every decoder the codec generated so far; returns how many.  (Encoders are
    left alone: they only ever see values a decoder produced, and instrumenting costs a few
    milliseconds a function.)"""
    count = 0
    for obj in gc.get_objects():
        if (
            isinstance(obj, types.FunctionType)
            and obj.__name__.startswith("decode_")
            and obj.__code__.co_filename.startswith(_GENERATED_CODEC)
        ):
            atheris.instrument_func(obj)
            count += 1
    return count


def _dictionary_entry(token: bytes) -> str:
    """One line of a libFuzzer dictionary: the token in quotes, every byte escaped."""
    return '"' + "".join(f"\\x{byte:02x}" for byte in token) + '"\n'


def _use_run_temp_dir(work: Path) -> None:
    """Make ``work/tmp`` (emptied) this process's temporary directory (module docstring)."""
    scratch = work / "tmp"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    tempfile.tempdir = str(scratch)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("family")
    parser.add_argument("--work", type=Path, default=Path(".fuzz"))
    args, libfuzzer_flags = parser.parse_known_args(argv)

    with atheris.instrument_imports(include=list(_INSTRUMENTED)):
        from tests.fuzz.seeds import CORPUS_DIR, REGRESSIONS_DIR, generated_seeds, stored_inputs
        from tests.fuzz.targets import FAMILIES, replay_seed

    family = FAMILIES[args.family]
    work = args.work / family.name
    _use_run_temp_dir(work)
    seeds = generated_seeds(family.name)
    stored = [data for root in (CORPUS_DIR, REGRESSIONS_DIR) for _, data in stored_inputs(root, family.name)]
    for data in [*seeds, *stored]:
        replay_seed(family, data)  # compiles every codec the seeds reach, and checks the seeds
    generated = _instrument_generated_code()

    corpus = work / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    seed_dir = Path(tempfile.mkdtemp(prefix=f"fuzz-seeds-{family.name}-"))
    for index, data in enumerate([*seeds, *stored]):
        (seed_dir / f"seed-{index:05d}").write_bytes(data)
    print(
        f"fuzzing {family.name} ({family.doc}): {len(seeds)} generated seeds, {len(stored)} stored inputs, "
        f"{generated} generated functions instrumented",
        flush=True,
    )

    target = family.target

    def one_input(data: bytes) -> None:
        target(data)

    flags = [f"-max_len={family.max_len}", f"-artifact_prefix={work}/", *libfuzzer_flags]
    if family.tokens:
        dictionary = work / "tokens.dict"
        dictionary.write_text("".join(_dictionary_entry(token) for token in family.tokens))
        flags.append(f"-dict={dictionary}")
    atheris.Setup([sys.argv[0], *flags, str(corpus), str(seed_dir)], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv[1:])
