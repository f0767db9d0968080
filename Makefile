# The two commands of the README: `make run` and `make test`. Everything they need is installed here.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DATA_DIR ?= ./data
# The mypyc build (tools/compile.py names its modules): build/compiled/ is a copy of the package with
# the hot modules compiled beside their sources; odradek/ itself stays pure Python, and so does what
# `pip install` installs. It runs with the overlay first on the path and the checkout's directory off it
# (the checkout's sources come second: they serve when no overlay was built).
COMPILED := build/compiled
COMPILED_ENV := PYTHONSAFEPATH=1 PYTHONPATH=$(COMPILED):.
BUILD_OVERLAY := $(BIN)/python tools/compile.py --out $(COMPILED)
RUN_BROKER = -m odradek run --host 127.0.0.1 --port 9092 --data-dir $(DATA_DIR) $(RUN_ARGS)
# The checkout is installed editable as a path in a .pth file (setuptools' compat mode), not through
# the default import hook: that hook imports pathlib, urllib and ipaddress into every Python process
# of the venv, brokers included (0.5 MiB of an idle broker's 30, which a wheel install never pays).
EDITABLE := --config-settings editable_mode=compat --editable

.PHONY: run run-pure test lint typecheck compiled browser-deps compat compat-deps compat-spark probes bench bench-spark fuzz soak clean test-orders-kafka soak-eos

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet $(EDITABLE) '.[test]'
	touch $(STAMP)

BENCH_STAMP := $(VENV)/.bench-installed

$(BENCH_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet $(EDITABLE) '.[test,bench]'
	touch $(BENCH_STAMP)

# PySpark and pyarrow for tests/spark and `odradek spark-load` (Spark's Kafka connector jars come from
# Maven Central through mvn at run time, into ~/.cache/odradek/spark-<version>).
SPARK_STAMP := $(VENV)/.spark-installed

$(SPARK_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet $(EDITABLE) '.[test,spark]'
	touch $(SPARK_STAMP)

# RUN_ARGS adds options, e.g. RUN_ARGS="--console 127.0.0.1:8080" for the web console beside the broker.
# `make run` runs the build that `make bench` measures: the package with the hot modules compiled by
# mypyc (see `compiled` below; about a minute the first time, skipped while up to date). Where mypyc
# cannot build it (no C compiler), the broker runs as pure Python after one line saying so.
# `make run-pure` runs the checkout's sources as they are.
run: $(STAMP)
	@$(BUILD_OVERLAY) || echo "!!! the mypyc build failed: the broker runs as pure Python (slower per request)"
	$(COMPILED_ENV) $(BIN)/python $(RUN_BROKER)

run-pure: $(STAMP)
	$(BIN)/python $(RUN_BROKER)

lint: $(STAMP)
	$(BIN)/ruff check odradek tests benchmarks examples compat-tests tools
	$(BIN)/ruff format --check odradek tests benchmarks examples compat-tests tools

typecheck: $(STAMP) $(SPARK_STAMP)
	$(BIN)/mypy
	$(BIN)/mypy --strict tools

compiled: $(STAMP)
	$(BUILD_OVERLAY)

# A subset of the suite against the compiled build, the one `make run` runs (`make test` runs it after
# the pure-Python suite): the overlay's own checks, the server, wire, storage, partition and handler
# units, real clients producing, fetching, in groups, idempotent and transactional, and the request
# path's edges (bad input, every version, TLS and SASL, quotas, crashes and restarts, storage faults,
# retention). Deselected: tests that replace a method of a compiled class (compiled callers call the
# original directly, or the class refuses the patch).
COMPILED_TESTS := tests/compiled tests/unit/server tests/unit/wire tests/unit/storage tests/unit/partition \
	tests/unit/handlers tests/integration/test_roundtrip_clients.py tests/integration/test_idempotent_produce.py \
	tests/integration/test_transactions.py tests/integration/test_groups.py \
	tests/integration/test_fetch_sendfile.py tests/integration/test_fetch_answers.py \
	tests/integration/test_bad_input.py tests/integration/test_record_validation.py \
	tests/integration/test_version_sweep.py tests/integration/test_golden_client_bytes.py \
	tests/integration/test_security_listeners.py tests/integration/test_security_reauth.py \
	tests/integration/test_security_quotas.py tests/integration/test_security_acls.py \
	tests/integration/test_crash.py tests/integration/test_restart.py tests/integration/test_storage_faults.py \
	tests/integration/test_retention_delete_records.py tests/integration/test_fetch_sessions.py \
	tests/integration/test_leader_epochs.py tests/integration/test_producer_snapshots.py \
	tests/integration/test_topic_admin_answers.py tests/integration/test_partition_admin.py \
	tests/integration/test_abuse.py \
	--deselect tests/unit/partition/test_partition.py::test_opening_a_large_log_reads_only_the_snapshot_and_the_tail \
	--deselect tests/unit/handlers/test_produce_fast_path.py::test_an_append_that_raises_is_answered_with_unknown_server_error

# The console's browser tests drive Debian's Chromium (never a browser build Playwright downloads).
# Where it cannot be installed they skip, naming the reason in pytest's summary.
CHROMIUM := /usr/bin/chromium

browser-deps:
	@test -x $(CHROMIUM) || (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1 \
		|| echo "!!! chromium could not be installed: the browser tests of tests/console will be skipped"

# pytest exits 5 when it collects nothing: that is a failure here, never a silent pass.
# tests/spark runs as its own step after the rest: one JVM and one SparkSession for all of it
# (its tests skip, loudly, where java or mvn is missing).
# examples/orders is an application's suite on the pytest plugin, run with two xdist workers.
# Last, the compiled subset against the mypyc overlay (built first when stale).
test: $(STAMP) $(SPARK_STAMP) lint typecheck browser-deps
	$(BIN)/python -m pytest -q -p no:cacheprovider tests --ignore=tests/spark --ignore=tests/compiled
	$(BIN)/python -m pytest -q -p no:cacheprovider -n 2 examples/orders
	$(BIN)/python -m pytest -q -p no:cacheprovider tests/spark
	$(MAKE) --no-print-directory test-compiled

.PHONY: test-compiled
test-compiled: compiled
	$(COMPILED_ENV) $(BIN)/python -m pytest -q -p no:cacheprovider -n 2 $(COMPILED_TESTS)

# Exactly once through crashes, longer than `make test` runs it: the copy job and the broker are
# SIGKILLed over EOS_ROUNDS rounds for each seed (tests/integration/test_exactly_once.py).
EOS_ROUNDS ?= 150
EOS_SEEDS ?= 1 2 3
soak-eos: $(STAMP)
	for seed in $(EOS_SEEDS); do \
		EOS_SEED=$$seed EOS_ROUNDS=$(EOS_ROUNDS) $(BIN)/python -m pytest -q -p no:cacheprovider \
			tests/integration/test_exactly_once.py || exit 1; \
	done

# The same orders suite against Apache Kafka (compat-tests' launcher; needs java and mvn).
test-orders-kafka: $(STAMP)
	$(BIN)/python examples/orders/against_kafka.py -q -rs

# The matrix needs java+mvn, go, node (all on the project's machines) and kcat (a Debian package).
# A missing toolchain skips its column with a loud line; it never fails the run by itself.
compat-deps:
	-command -v kcat >/dev/null 2>&1 || (apt-get update -qq && apt-get install -y -qq kcat) >/dev/null 2>&1

compat: $(STAMP) compat-deps
	$(BIN)/python compat-tests/run.py --extras $(COMPAT_ARGS)

# The odradek command line against Apache Kafka and odradek, outputs compared, and dump-log against Kafka's
# DumpLogSegments on the same files (needs java+mvn); writes compat-tests/report/cli.{json,md}.
.PHONY: compat-cli
compat-cli: $(STAMP)
	$(BIN)/python compat-tests/cli/run.py $(COMPAT_CLI_ARGS)

# Connection limits (max.connections, per listener and per ip, connections.max.idle.ms): the same raw
# connections against Apache Kafka and odradek started with the same limits; writes compat-tests/report/limits.{json,md}.
.PHONY: compat-limits
compat-limits: $(STAMP)
	$(BIN)/python compat-tests/limits/run.py $(COMPAT_LIMITS_ARGS)

# tests/spark (Spark's Kafka connector, spark-load, the odradek data source) against a fresh Apache Kafka
# and against odradek; writes compat-tests/report/spark.{md,json}. COMPAT_SPARK_ARGS="--brokers kafka -k txn"
compat-spark: $(STAMP) $(SPARK_STAMP)
	$(BIN)/python compat-tests/spark/run.py $(COMPAT_SPARK_ARGS)

# Exact raw requests to Apache Kafka and odradek, answers compared field by field (needs java+mvn).
probes: $(STAMP)
	$(BIN)/python compat-tests/probes/run.py $(PROBE_ARGS)

# ApiVersions captured from real Apache Kafka releases for release emulation (needs java+mvn); rewrites
# odradek/emulation/releases/*.json and compat-tests/emulation/README.md. EMULATION_ARGS=--only 3.6,3.6-zk
.PHONY: emulation-capture
emulation-capture: $(STAMP)
	$(BIN)/python compat-tests/emulation/capture.py $(EMULATION_ARGS)

# Side by side with Apache Kafka (needs java 17 and mvn); writes benchmarks/results/.
# BENCH_ARGS=--quick for a fast look; benchmarks/storage_log.py measures the log alone.
bench: $(STAMP) $(BENCH_STAMP)
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

# Coverage-guided fuzzing of every decoder family (atheris), FUZZ_RUNS executions each (a short run
# is part of `make test`); crash inputs and logs land in .fuzz/<family>/, the summary in .fuzz/summary.json.
FUZZ_RUNS ?= 1000000
fuzz: $(STAMP)
	$(BIN)/python -m tests.fuzz.campaign --runs $(FUZZ_RUNS) --summary .fuzz/summary.json $(FUZZ_ARGS)

# An hour (SOAK_MINUTES) of traffic, rebalances, retention and compaction against one odradek: no acknowledged
# loss, no leak, no latency drift; writes benchmarks/results/soak-<date>.{json,md}. A 40 s run is part of `make test`.
SOAK_MINUTES ?= 60
soak: $(STAMP)
	$(BIN)/python benchmarks/soak.py --minutes $(SOAK_MINUTES) $(SOAK_ARGS)

# The SASL gate before authentication under 100,000 random frames (make test runs a short run).
.PHONY: fuzz-security
fuzz-security: $(STAMP)
	ODRADEK_FUZZ_FRAMES=100000 $(BIN)/python -m pytest -q -p no:cacheprovider tests/unit/security/test_sasl_gate_fuzz.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .fuzz $(COMPILED)
