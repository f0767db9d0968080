"""The compatibility matrix: every broker x driver x scenario, compared against the reference broker.

For each broker (started once), for each driver, for each scenario: a fresh driver process runs the
scenario's steps (one process per scenario, so a hung or crashed driver costs one cell). Observations
are normalised (harness/normalise.py), checked against the scenario's expectations and checks, and
finally compared with the reference broker's observations for the same (scenario, driver).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import checks, drivers, report
from harness.broker import PEERS, REFERENCE, RunningBroker, launchers
from harness.drivers import DriverDied, DriverSpec, StepTimeout
from harness.expect import match
from harness.net import free_port
from harness.normalise import Normaliser, comparable
from harness.peers import PeerUnavailable
from harness.report import Cell
from harness.scenarios import DEFAULT_STEP_TIMEOUT_S, Scenario, load_all, select
from harness.security import SecuredProfile, create_scram_users, grant_client_acls, super_user_step
from harness.sessions import CellDrivers

COMPAT_DIR = Path(__file__).resolve().parents[1]
RETRY_INTERVAL_S = 0.25
#: The driver that performs ``setup``/``fallback`` steps another driver cannot do.
HELPER_DRIVER = "confluent-kafka"


def _clip(value: Any, limit: int = 160) -> Any:
    """A copy safe to log: long strings (megabyte payloads) are shortened."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]}...<{len(value)} chars>"
    if isinstance(value, list):
        return [_clip(v, limit) for v in value]
    if isinstance(value, dict):
        return {k: _clip(v, limit) for k, v in value.items()}
    return value


#: Steps the harness performs itself; drivers never see them.
HARNESS_OPS = frozenset({"kill_driver", "restart_broker", "super_user"})


def _harness_step(
    step: dict[str, Any],
    template: dict[str, Any],
    cell_drivers: CellDrivers,
    broker: RunningBroker,
    principal: str | None,
) -> dict[str, Any]:
    """``kill_driver`` (of the secondary named by the template's ``driver``), ``restart_broker`` and
    ``super_user`` (a secured scenario's topics and ACLs, ``principal`` being its client's), answered
    as a driver would answer a step."""
    if step["op"] == "kill_driver":
        return {"step": step["id"], **cell_drivers.kill(str(template.get("driver")))}
    if step["op"] == "super_user":
        if principal is None:
            return {"step": step["id"], "ok": False, "unsupported": True}
        try:
            return {"step": step["id"], **super_user_step(broker.bootstrap, step, principal)}
        except Exception as exc:
            return {"step": step["id"], "ok": False, "error": f"HARNESS:super_user failed: {type(exc).__name__}: {exc}"}
    if broker.restart is None:
        return {"step": step["id"], "ok": False, "unsupported": True}
    try:
        broker.restart(bool(step.get("kill", False)))
    except Exception as exc:
        return {"step": step["id"], "ok": False, "error": f"HARNESS:restart failed: {type(exc).__name__}: {exc}"}
    return {"step": step["id"], "ok": True}


#: Ops that build the group a scenario is about: when a client cannot do one of them, the rest of
#: the scenario no longer describes the same group on both brokers.
MEMBER_OPS = frozenset({"member_start", "member_pause", "member_stop"})


def run_scenario(
    spec: DriverSpec,
    broker: RunningBroker,
    scenario: Scenario,
    tag: str,
    log_dir: Path,
    step_timeout_s: float,
    helper_spec: DriverSpec | None = None,
    profile: SecuredProfile | None = None,
) -> Cell:
    """Run one scenario in fresh driver processes and judge it against its own expectations.

    A step marked ``setup`` or ``fallback`` that the driver answers as unsupported is performed by the
    helper driver instead; the helper's observation feeds the scenario's checks but is never compared
    between brokers, and only ``fallback`` steps count towards the cell being unsupported. Once a
    member op (``MEMBER_OPS``: a member the client cannot start with the scenario's settings, a
    pause it cannot make) is unsupported, no later step is sent: the group the rest of the
    scenario describes would not exist, so those steps are unsupported too and so is the cell.
    The same holds once the helper cannot do a step either (eager ``sticky``: kafkajs and kcat
    lack it, and so does the helper, confluent-kafka).
    ``kill_driver``, ``restart_broker`` and ``super_user`` are done here (``HARNESS_OPS``).
    """
    started = time.monotonic()
    templates = scenario.for_driver(spec.name)
    steps, placeholders = scenario.instantiate(tag, spec.name)
    normaliser = Normaliser(placeholders, scenario.explicit_timestamps(), int(time.time() * 1000))
    folder = log_dir / broker.name / spec.name
    folder.mkdir(parents=True, exist_ok=True)
    transcript_path = folder / f"{scenario.name}.jsonl"
    cell = Cell(scenario.name, spec.name, broker.name, "fail", log=str(transcript_path))
    unsupported: list[str] = []
    group_unsupported = False
    helped: dict[str, dict[str, Any]] = {}
    with transcript_path.open("w") as transcript:

        def log(kind: str, payload: Any) -> None:
            transcript.write(json.dumps({"t": round(time.monotonic() - started, 3), kind: _clip(payload)}) + "\n")
            transcript.flush()

        try:
            connection, principal = None, None
            if scenario.security is not None and profile is not None:
                principal = profile.principal(scenario.security)
                address, settings = profile.driver_connection(scenario.security)
                connection = (address, {"COMPAT_SECURITY": json.dumps(settings)})
            cell_drivers = CellDrivers(spec, helper_spec, broker.bootstrap, folder, scenario.name, connection)
        except (StepTimeout, DriverDied) as exc:
            cell.problems.append(f"driver did not start: {exc}")
            log("error", str(exc))
            cell.seconds = round(time.monotonic() - started, 2)
            return cell
        cell.client = cell_drivers.main.client
        try:
            for template, step in zip(templates, steps, strict=True):
                expectation = template.get("expect", {"ok": True})
                timeout_s = float(template.get("timeout_s", step_timeout_s))
                driver = template.get("driver") if step["op"] not in HARNESS_OPS else None
                skipped = group_unsupported
                time.sleep(0 if skipped else float(template.get("delay_s", 0)))
                deadline = time.monotonic() + float(template.get("retry_s", 0))
                while True:
                    log("step", step if "driver" not in template else {**step, "driver": template["driver"]})
                    if skipped:
                        reply = {"step": step["id"], "ok": False, "unsupported": True}
                    elif step["op"] in HARNESS_OPS:
                        reply = _harness_step(step, template, cell_drivers, broker, principal)
                    else:
                        reply = cell_drivers.request(step, timeout_s, driver)
                    log("reply", reply)
                    observed = normaliser.observation(reply)
                    if observed.get("unsupported"):
                        problems = []
                        break
                    problems = [] if expectation is None else match(expectation, observed)
                    if not problems or time.monotonic() >= deadline:
                        break
                    time.sleep(RETRY_INTERVAL_S)
                if observed.get("unsupported"):
                    group_unsupported = group_unsupported or step["op"] in MEMBER_OPS
                    if not template.get("setup"):
                        unsupported.append(step["id"])
                    if (template.get("setup") or template.get("fallback")) and not skipped:
                        reply = cell_drivers.help(step, timeout_s)
                        log("helper_reply", reply)
                        if reply.get("unsupported"):
                            group_unsupported = True
                        else:
                            helped[step["id"]] = normaliser.observation(reply)
                            problems = [] if expectation is None else match(expectation, helped[step["id"]])
                            problems = [f"(done by helper {HELPER_DRIVER}) {p}" for p in problems]
                    cell.notes.append(
                        f"step {step['id']}: unsupported" + (", done by helper" if step["id"] in helped else "")
                    )
                else:
                    cell.observations[step["id"]] = observed
                cell.problems.extend(f"step {step['id']} ({step['op']}): {p}" for p in problems)
        except (StepTimeout, DriverDied) as exc:
            cell.problems.append(f"step {step['id']} ({step['op']}): {exc}")
            log("error", str(exc))
        finally:
            cell_drivers.close()
    by_id = {s["id"]: s for s in templates}
    cell.problems.extend(checks.run(scenario.checks, by_id, {**helped, **cell.observations}))
    if cell.problems:
        cell.status = "fail"
    elif unsupported:
        cell.status = "unsupported"
        cell.problems.append(f"unsupported steps: {', '.join(unsupported)}")
    else:
        cell.status = "pass"
    cell.seconds = round(time.monotonic() - started, 2)
    return cell


def _differences(a: Any, b: Any, path: str) -> list[str]:
    if type(a) is not type(b):
        return [f"{path}: {a!r} vs {b!r}"]
    if isinstance(a, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{path}.{key}: {a.get(key, '<absent>')!r} vs {b.get(key, '<absent>')!r}")
            else:
                out.extend(_differences(a[key], b[key], f"{path}.{key}"))
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items vs {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} vs {b!r}"]


def compare(cells: list[Cell], scenarios: dict[str, Scenario]) -> None:
    """Mark non-reference cells whose observations differ from the reference broker's as 'diff'."""
    reference = {(c.scenario, c.driver): c for c in cells if c.broker == REFERENCE}
    for cell in cells:
        ref = reference.get((cell.scenario, cell.driver))
        if cell.broker == REFERENCE or ref is None or ref.status == "skipped" or cell.status == "skipped":
            continue
        compared = [s["id"] for s in scenarios[cell.scenario].steps if s.get("compare", True)]
        for step_id in compared:
            if step_id in ref.observations and step_id in cell.observations:
                diffs = _differences(
                    comparable(ref.observations[step_id]), comparable(cell.observations[step_id]), f"step {step_id}"
                )
                cell.diff.extend(f"{d} ({REFERENCE} vs {cell.broker})" for d in diffs)
        if cell.diff and cell.status == "pass":
            cell.status = "diff"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--brokers", default="kafka,odradek", help="comma-separated (default kafka,odradek)")
    parser.add_argument("--drivers", default="", help="comma-separated driver names (default: all)")
    parser.add_argument("--scenarios", default="", help="comma-separated names or name prefixes (default: all)")
    parser.add_argument("--fast", action="store_true", help="only the scenarios marked fast (CI subset)")
    parser.add_argument("--step-timeout", type=float, default=DEFAULT_STEP_TIMEOUT_S)
    parser.add_argument("--kafka-version", default="", help="pin the Apache Kafka version (else newest)")
    parser.add_argument("--report-dir", type=Path, default=COMPAT_DIR / "report")
    parser.add_argument("--list", action="store_true", help="list drivers and scenarios, then exit")
    return parser.parse_args(argv)


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _usable_drivers(specs: list[DriverSpec], log_dir: Path) -> tuple[list[DriverSpec], dict[str, str]]:
    """Drivers whose toolchains exist and whose builds succeed; the rest get a reason."""
    usable: list[DriverSpec] = []
    skipped: dict[str, str] = {}
    for spec in specs:
        missing = spec.missing_tools()
        if missing:
            skipped[spec.name] = f"SKIPPED: missing toolchain {', '.join(missing)}"
            continue
        failure = drivers.build(spec, log_dir / "builds" / f"{spec.name}.log")
        if failure:
            skipped[spec.name] = f"SKIPPED: {failure} (log: {log_dir / 'builds' / (spec.name + '.log')})"
            continue
        usable.append(spec)
    return usable, skipped


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.kafka_version:
        os.environ["ODRADEK_KAFKA_VERSION"] = args.kafka_version
    specs = drivers.discover()
    helper_spec = next((s for s in specs if s.name == HELPER_DRIVER and not s.missing_tools()), None)
    wanted = _split(args.drivers)
    unknown = set(wanted) - {s.name for s in specs}
    if unknown:
        print(f"unknown drivers: {sorted(unknown)}; known: {[s.name for s in specs]}", file=sys.stderr)
        return 2
    specs = [s for s in specs if not wanted or s.name in wanted]
    scenarios = select(load_all(), _split(args.scenarios) or None, args.fast)
    brokers = _split(args.brokers)
    known_brokers = launchers()
    if args.list:
        print("drivers:", ", ".join(s.name for s in specs))
        print("scenarios:", ", ".join(s.name for s in scenarios))
        print("brokers:", ", ".join(known_brokers))
        return 0
    if set(brokers) - set(known_brokers):
        print(f"unknown brokers: {sorted(set(brokers) - set(known_brokers))}", file=sys.stderr)
        return 2
    if not scenarios:
        print("no scenarios selected", file=sys.stderr)
        return 2
    brokers.sort(key=lambda name: name != REFERENCE)
    log_dir = args.report_dir / "logs"
    usable, skipped = _usable_drivers(specs, log_dir)
    for name, reason in skipped.items():
        print(f"!!! driver {name}: {reason}", file=sys.stderr)
    run_id = time.strftime("%H%M%S") + f"{os.getpid() % 1000:03d}"
    run_info: dict[str, Any] = {"run_id": run_id, "brokers": {}, "drivers": dict(skipped)}
    cells: list[Cell] = []
    with tempfile.TemporaryDirectory(prefix="compat-secured-") as secured_dir:
        # One profile per run: every broker gets the same certificates, users and ACLs (new ports each).
        profile = SecuredProfile(Path(secured_dir)) if any(s.security for s in scenarios) else None
        for broker_name in brokers:
            if profile is not None:
                profile.ports = {name: free_port() for name in profile.ports}
            cells.extend(
                _run_broker(
                    broker_name, known_brokers, usable, scenarios, run_id, log_dir, args, run_info, helper_spec,
                    profile,
                )
            )  # fmt: skip
    for name, reason in skipped.items():
        cells.extend(Cell(s.name, name, b, "skipped", [reason]) for s in scenarios for b in brokers)
    compare(cells, {s.name: s for s in scenarios})
    json_path, md_path = report.write(args.report_dir, run_info, cells)
    counts = report.summary(cells)
    print(f"matrix: {json_path} and {md_path}")
    print("summary: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    for name, reason in skipped.items():
        print(f"!!! column {name} not run: {reason}")
    if any(c.broker in PEERS and c.status in ("fail", "diff") for c in cells):
        print(f"(peer columns {', '.join(sorted(PEERS & set(brokers)))} are reported only, never gating)")
    return 1 if any(c.status in ("fail", "diff") and c.broker not in PEERS for c in cells) else 0


def _run_broker(
    broker_name: str,
    known: dict[str, Any],
    specs: list[DriverSpec],
    scenarios: list[Scenario],
    run_id: str,
    log_dir: Path,
    args: argparse.Namespace,
    run_info: dict[str, Any],
    helper_spec: DriverSpec | None,
    profile: SecuredProfile | None = None,
) -> list[Cell]:
    """The cells of one broker: the plain scenarios on a plain broker, then the secured ones
    (``Scenario.security``) on a second start of it with the run's secured ``profile``, after the
    SCRAM users and the clients' ACLs are made (the same on every broker)."""
    plain = [s for s in scenarios if s.security is None]
    secured = [s for s in scenarios if s.security is not None]
    cells: list[Cell] = []
    if plain:
        cells += _run_started(broker_name, known, specs, plain, run_id, log_dir, args, run_info, helper_spec, None)
    if secured and broker_name in PEERS:
        reason = f"the secured configuration runs on {REFERENCE} and odradek only"
        cells += [Cell(s.name, d.name, broker_name, "skipped", [reason]) for d in specs for s in secured]
    elif secured and profile is not None:
        cells += _run_started(
            broker_name, known, specs, secured, run_id, log_dir, args, run_info, helper_spec, profile
        )  # fmt: skip
    return cells


def _run_started(
    broker_name: str,
    known: dict[str, Any],
    specs: list[DriverSpec],
    scenarios: list[Scenario],
    run_id: str,
    log_dir: Path,
    args: argparse.Namespace,
    run_info: dict[str, Any],
    helper_spec: DriverSpec | None,
    profile: SecuredProfile | None,
) -> list[Cell]:
    cells: list[Cell] = []
    log_dir.mkdir(parents=True, exist_ok=True)
    label = f"{broker_name} (secured)" if profile is not None else broker_name
    log_name = f"{broker_name}-secured.log" if profile is not None else f"{broker_name}.log"
    print(f"== starting broker {label}", flush=True)
    try:
        with (
            tempfile.TemporaryDirectory(prefix="compat-") as tmp,
            (
                known[broker_name](Path(tmp), log_dir / log_name, profile=profile)
                if profile is not None
                else known[broker_name](Path(tmp), log_dir / log_name)
            ) as broker,
        ):
            run_info["brokers"][label] = f"{broker.version} at {broker.bootstrap}, ready in {broker.start_seconds:.1f}s"
            print(f"   {label} {broker.version} ready in {broker.start_seconds:.1f}s", flush=True)
            if profile is not None:
                create_scram_users(broker.bootstrap)
                grant_client_acls(broker.bootstrap)
            for spec in specs:
                for scenario in scenarios:
                    tag = f"{run_id}-{spec.name}"
                    cell = run_scenario(
                        spec, broker, scenario, tag, log_dir, args.step_timeout, helper_spec, profile
                    )  # fmt: skip
                    if cell.client:
                        run_info["drivers"][spec.name] = cell.client
                    print(f"   {broker_name:8} {spec.name:16} {scenario.name:32} {cell.status} ({cell.seconds}s)")
                    for problem in cell.problems[:3]:
                        print(f"      {problem}")
                    cells.append(cell)
    except Exception as exc:
        reason = f"broker {label} did not start: {type(exc).__name__}: {exc}"
        status = "skipped" if isinstance(exc, PeerUnavailable) else "fail"
        print(f"!!! {reason}", file=sys.stderr)
        run_info["brokers"][label] = reason
        done = {(c.scenario, c.driver) for c in cells}
        cells.extend(
            Cell(s.name, d.name, broker_name, status, [reason])
            for d in specs
            for s in scenarios
            if (s.name, d.name) not in done
        )
    return cells
