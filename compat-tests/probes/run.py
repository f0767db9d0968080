"""Raw-request probes: the same exact request sequences against Apache Kafka and odradek,
answers compared field by field (``make probes``; ``--help`` for filters).

Where the matrix asks "does this client work", a probe asks "does the broker answer this
request exactly as Kafka does": error codes, error messages, generations, member lists.
Every difference is printed with its path and both values and ends the run with status 1.

Normalised before comparing: the run's unique names (back to placeholders), broker-generated
ids (any string holding a UUID, aliased by order of first appearance, so "the leader is the
second member" still compares), addresses and ports, throttle times, cluster ids, and the
order of per-group answers in batched group requests (Kafka's follows its shards).
Reports: compat-tests/report/probes.json and probes.md (``--out DIR`` elsewhere: a run of a few
sequences then leaves the committed full report alone).  ``--run-id ID`` fixes the names' unique
part, so answers that depend on the names (Kafka's hash orders) repeat from run to run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

COMPAT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(COMPAT), str(COMPAT.parent)]

from harness.broker import RunningBroker, launchers  # noqa: E402
from harness.security import SecuredProfile, create_scram_users  # noqa: E402

from probes.batch_shapes import SEQUENCES as BATCH_SHAPE_SEQUENCES  # noqa: E402
from probes.cluster import SEQUENCES as CLUSTER_SEQUENCES  # noqa: E402
from probes.configs import SEQUENCES as CONFIG_SEQUENCES  # noqa: E402
from probes.configs_and_order import SECURED_CONFIG_SEQUENCES  # noqa: E402
from probes.configs_and_order import SEQUENCES as ORDER_SEQUENCES  # noqa: E402
from probes.dynamic_configs import SEQUENCES as DYNAMIC_CONFIG_SEQUENCES  # noqa: E402
from probes.epochs import SEQUENCES as EPOCH_SEQUENCES  # noqa: E402
from probes.features import SEQUENCES as FEATURE_SEQUENCES  # noqa: E402
from probes.fetch_sessions import SEQUENCES as FETCH_SEQUENCES  # noqa: E402
from probes.group_configs import SEQUENCES as GROUP_CONFIG_SEQUENCES  # noqa: E402
from probes.groups import SEQUENCES as GROUP_SEQUENCES  # noqa: E402
from probes.groups_legacy import SEQUENCES as LEGACY_GROUP_SEQUENCES  # noqa: E402
from probes.idempotence import SEQUENCES as IDEMPOTENCE_SEQUENCES  # noqa: E402
from probes.log_dirs import SEQUENCES as LOG_DIR_SEQUENCES  # noqa: E402
from probes.partitions import SEQUENCES as PARTITION_SEQUENCES  # noqa: E402
from probes.quota_enforcement import SEQUENCES as QUOTA_SEQUENCES  # noqa: E402
from probes.secured import SECURED_SEQUENCES as SECURITY_SECURED_SEQUENCES  # noqa: E402
from probes.secured_admin import SECURED_ADMIN_SEQUENCES  # noqa: E402
from probes.security import SEQUENCES as SECURITY_SEQUENCES  # noqa: E402
from probes.session import Observation, Session  # noqa: E402
from probes.storage import SEQUENCES as STORAGE_SEQUENCES  # noqa: E402
from probes.topics import SEQUENCES as TOPIC_SEQUENCES  # noqa: E402
from probes.transactions import SEQUENCES as TRANSACTION_SEQUENCES  # noqa: E402
from probes.transactions_secured import SEQUENCES as SECURED_TRANSACTION_SEQUENCES  # noqa: E402
from probes.versions import SEQUENCES as VERSION_SEQUENCES  # noqa: E402

SECURED_SEQUENCES = {
    **SECURITY_SECURED_SEQUENCES,
    **SECURED_ADMIN_SEQUENCES,
    **SECURED_TRANSACTION_SEQUENCES,
    **SECURED_CONFIG_SEQUENCES,
}
SEQUENCES = {
    **GROUP_SEQUENCES,
    **LEGACY_GROUP_SEQUENCES,
    **STORAGE_SEQUENCES,
    **TOPIC_SEQUENCES,
    **FETCH_SEQUENCES,
    **CONFIG_SEQUENCES,
    **IDEMPOTENCE_SEQUENCES,
    **VERSION_SEQUENCES,
    **PARTITION_SEQUENCES,
    **EPOCH_SEQUENCES,
    **CLUSTER_SEQUENCES,
    **LOG_DIR_SEQUENCES,
    **DYNAMIC_CONFIG_SEQUENCES,
    **GROUP_CONFIG_SEQUENCES,
    **FEATURE_SEQUENCES,
    **TRANSACTION_SEQUENCES,
    **SECURITY_SEQUENCES,
    **QUOTA_SEQUENCES,
    **ORDER_SEQUENCES,
    **SECURED_SEQUENCES,
    **BATCH_SHAPE_SEQUENCES,
}
REPORT_DIR = COMPAT / "report"
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: Epoch milliseconds from 2025-06 on: a broker's own clock inside a message ("within [now-x, now+y]").
_NOW_MS = re.compile(r"\b(17[5-9]|1[89]\d)\d{10}\b")
#: Facts of the machine, not of the broker: where the data directory is and how full the disk.
_FORWARDED = re.compile(r"^Request Request\(.*\) needs (\w+) permission\.$", re.S)
_MASKED = {"log_dir", "usable_bytes", "total_bytes"}
#: Kafka prints its request object in some refusals: its processor and connection ids are its own.
_REQUEST_OBJECT = re.compile(r"Request\(processor=\d+, connectionId=\S+, session=\S+,")
_DROPPED = {"throttle_time_ms", "cluster_id", "host", "port"}
#: Broker config values that differ because the two brokers are different processes, masked to
#: the part that is behaviour (in DescribeConfigs entries and their synonyms alike):
#: - ``log.dirs``: each broker's own temporary data directory;
#: - ``listeners``: Kafka's combined mode adds a CONTROLLER listener, which odradek does not have
#:   (it answers the controller APIs on its client listeners);
#: - ``controller.quorum.voters``: the voter's port is Kafka's controller listener, odradek's own port.
_PROCESS_BOUND_CONFIGS = {
    "log.dirs": lambda value: "<data-dirs>",
    "listeners": lambda value: ",".join(
        listener for listener in value.split(",") if not listener.startswith("CONTROLLER://")
    ),
    "controller.quorum.voters": lambda value: re.sub(r":\d+\b", ":<port>", value),
}


def _names(run_id: str | None = None) -> dict[str, str]:
    """A sequence's run-unique names; ``run_id`` fixes their unique part (``--run-id``)."""
    run = run_id or uuid.uuid4().hex[:8]
    return {key: f"probe-{key}-{run}" for key in ("group", "topic", "other", "missing")}


class _Normaliser:
    """Per sequence: concrete names -> placeholders, generated ids -> ``<id-N>``."""

    def __init__(self, names: dict[str, str], data_dir: Path | None = None) -> None:
        self._names = {value: f"{{{key}}}" for key, value in names.items()}
        self._ids: dict[str, str] = {}
        self._data_dir = str(data_dir) if data_dir is not None else None

    def _field(self, key: str, value: Any) -> Any:
        if key == "topic_id":
            return "<topic-id>"
        if key == "log_dir" and self._data_dir and isinstance(value, str) and value.startswith(self._data_dir):
            return "<data>" + value[len(self._data_dir) :]
        if key in _MASKED:
            return f"<{key}>"
        if key == "session_id" and isinstance(value, int) and value != 0:
            return self._ids.setdefault(f"session {value}", f"<session-{len(self._ids) + 1}>")
        return self(value)

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str) and _FORWARDED.match(value):
            # Kafka's controller prints the forwarded request (its Java internals: buffer positions):
            # only the frame and the operation are behaviour.
            return _FORWARDED.sub(r"Request Request(<forwarded request>) needs \1 permission.", value)
        if isinstance(value, dict):
            name = value.get("name")
            mask = _PROCESS_BOUND_CONFIGS.get(name) if isinstance(name, str) else None
            if mask is not None and isinstance(value.get("value"), str):
                value = {**value, "value": mask(value["value"])}
            return {k: self._field(k, v) for k, v in value.items() if k not in _DROPPED}
        if isinstance(value, list):
            items = [self(item) for item in value]
            if items and all(isinstance(item, dict) and "group_id" in item for item in items):
                # Kafka answers batched group requests shard by shard (its order follows a hash
                # map of __consumer_offsets partitions), so only the set of answers is behaviour.
                items.sort(key=lambda item: str(item["group_id"]))
            return items
        if isinstance(value, str):
            if value in self._names:
                return self._names[value]
            if _UUID.search(value):
                return self._ids.setdefault(value, f"<id-{len(self._ids) + 1}>")
            for concrete, placeholder in self._names.items():
                value = value.replace(concrete, placeholder)
            value = _NOW_MS.sub("<now>", value)
            value = _REQUEST_OBJECT.sub("Request(<connection>,", value)
        return value


def run_broker(
    broker: str,
    sequences: list[str],
    workdir: Path,
    profile: SecuredProfile | None = None,
    run_names: dict[str, dict[str, str]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Every chosen sequence against a fresh broker, normalised; the secured ones (probes/secured.py)
    against a second fresh broker running ``profile``, with its SCRAM users created first; a sequence
    marked `probes.session.own_broker` against a fresh broker of its own (a secured one for a secured
    sequence).  ``run_names`` gives each sequence its names (the same on both brokers: Kafka lists
    some answers in the hash order of topic and group names, so only the same names compare); missing
    ones are made up."""
    results: dict[str, list[dict[str, Any]]] = {}
    own = [name for name in sequences if getattr(SEQUENCES[name], "own_broker", False)]
    plain = [name for name in sequences if name not in SECURED_SEQUENCES and name not in own]
    secured = [name for name in sequences if name in SECURED_SEQUENCES and name not in own]
    if plain:
        with launchers()[broker](workdir, workdir / f"{broker}.log") as running:
            results.update(_run_sequences(running, plain, {}, run_names))
    if secured:
        results.update(_run_secured(broker, secured, workdir / f"{broker}-secured.log", profile, run_names))
    for name in own:
        settings = SEQUENCES[name].own_broker  # type: ignore[attr-defined]
        log = workdir / f"{broker}-{name}.log"
        if name in SECURED_SEQUENCES:
            results.update(_run_secured(broker, [name], log, profile, run_names, settings))
            continue
        with launchers()[broker](workdir, log, **settings) as running:
            results.update(_run_sequences(running, [name], {}, run_names))
    return results


def _run_secured(
    broker: str,
    sequences: list[str],
    log: Path,
    profile: SecuredProfile | None,
    run_names: dict[str, dict[str, str]] | None,
    settings: dict[str, Any] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """``sequences`` against a fresh broker running ``profile`` (started in ``log``'s directory with
    the launcher's ``settings``), its SCRAM users created first; each sequence also gets the address
    of every listener, as ``addr:<LISTENER>``."""
    assert profile is not None
    launch: Any = launchers()[broker]
    with launch(log.parent, log, profile=profile, **(settings or {})) as running:
        create_scram_users(running.bootstrap)
        addresses = {f"addr:{name}": address for name, address in running.listeners.items()}
        return _run_sequences(running, sequences, addresses, run_names)


def _run_sequences(
    running: RunningBroker, sequences: list[str], extra: dict[str, str], run_names: dict[str, dict[str, str]] | None
) -> dict[str, list[dict[str, Any]]]:
    results: dict[str, list[dict[str, Any]]] = {}
    for name in sequences:
        names = (run_names or {}).get(name) or _names()
        session = Session(running.bootstrap, restarter=running.restart, data_dir=running.data_dir)
        error = None
        try:
            SEQUENCES[name](session, {**names, **extra})
        except Exception as exc:  # a broker that closes the connection is an observation too
            error = f"{type(exc).__name__}: {exc}"
        finally:
            session.close()
        # The cluster id inside messages ("doesn't match the cluster id X") is the broker's own.
        normalise = _Normaliser({**names, "cluster": running.cluster_id}, running.data_dir)
        rows = [_row(o, normalise) for o in session.observations]
        if error is not None:
            rows.append({"label": "sequence stopped", "error": normalise(error)})
        results[name] = rows
    return results


#: Answers Kafka lists in hash-map order (its controller collects them in a map keyed by topic
#: name or id, user name, quota entity): compared as sets, sorted by name (or whole content).
_UNORDERED = {
    "DeleteTopicsRequest": "responses",
    "CreatePartitionsRequest": "results",
    "AlterUserScramCredentialsRequest": "results",
    "DescribeUserScramCredentialsRequest": "results",
    "AlterClientQuotasRequest": "entries",
    "DescribeClientQuotasRequest": "entries",
    "DescribeAclsRequest": "resources",
}
#: Lists inside each result that Kafka fills from a hash map (config names).
_UNORDERED_INNER = {"DescribeConfigsRequest": ("results", "configs")}


def _row(observation: Observation, normalise: _Normaliser) -> dict[str, Any]:
    response = normalise(observation.response)
    unordered = _UNORDERED.get(observation.api)
    if unordered is not None and isinstance(response, dict) and isinstance(response.get(unordered), list):
        response[unordered] = sorted(
            response[unordered],
            key=lambda item: str(item.get("name", item.get("user", json.dumps(item, sort_keys=True)))),
        )
    if (
        observation.api == "DescribeUserScramCredentialsRequest"
        and isinstance(response, dict)
        and "results" in response
    ):
        # Kafka's metadata image keeps credentials in a map keyed by mechanism (an enum's identity
        # hash): the order of a user's mechanisms differs from one JVM to the next.
        for result in response["results"]:
            result["credential_infos"].sort(key=lambda item: item["mechanism"])
    if observation.api == "DescribeAclsRequest" and isinstance(response, dict) and "resources" in response:
        for resource in response["resources"]:
            resource["acls"].sort(key=lambda item: json.dumps(item, sort_keys=True))
    if observation.api == "DeleteAclsRequest" and isinstance(response, dict) and "filter_results" in response:
        for result in response["filter_results"]:
            result["matching_acls"].sort(key=lambda item: json.dumps(item, sort_keys=True))
    if observation.api == "ListGroupsRequest" and isinstance(response, dict):
        # The broker is shared by every sequence: keep this sequence's groups only.
        response["groups"] = [g for g in response["groups"] if str(g["group_id"]).startswith("{")]
    if (
        observation.api == "MetadataRequest"
        and observation.request.get("topics") is None
        and isinstance(response, dict)
        and "topics" in response
    ):
        # Likewise for "every topic": this sequence's topics and the internal ones.
        response["topics"] = [t for t in response["topics"] if str(t["name"]).startswith(("{", "__"))]
    if observation.api == "ElectLeadersRequest" and observation.request.get("topic_partitions") is None:
        # Every partition: keep this sequence's topics and the internal ones, in name order
        # (Kafka lists topics in hash-map order).
        results = [r for r in response.get("replica_election_results", []) if str(r["topic"]).startswith(("{", "__"))]
        response["replica_election_results"] = sorted(results, key=lambda r: str(r["topic"]))
    if observation.api == "DescribeQuorumRequest" and isinstance(response, dict):
        _mask_quorum(response)
    inner = _UNORDERED_INNER.get(observation.api)
    if inner is not None and isinstance(response, dict):
        outer, field = inner
        for item in response[outer]:
            item[field] = sorted(item[field], key=lambda entry: str(entry.get("name")))
    return {"label": observation.label, "api": f"{observation.api} v{observation.version}", "response": response}


#: Offsets in the KRaft metadata log (Kafka's grows by a no-op record every 500 ms; odradek keeps
#: no such log) and the leader's clock: present or absent is behaviour, the value is not.
_QUORUM_OFFSETS = {"high_watermark", "log_end_offset"}
_QUORUM_CLOCK = {"last_fetch_timestamp", "last_caught_up_timestamp"}


def _mask_quorum(value: Any) -> None:
    if isinstance(value, list):
        for item in value:
            _mask_quorum(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in _QUORUM_OFFSETS and isinstance(item, int) and item > 0:
                value[key] = "<offset>"
            elif key in _QUORUM_CLOCK and isinstance(item, int) and item > 1_000_000_000_000:
                value[key] = "<now>"
            else:
                _mask_quorum(item)


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two normalised answers differ, as ``path: a != b`` lines."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            out += differences(a.get(key, "<absent>"), b.get(key, "<absent>"), f"{path}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [line for i, (x, y) in enumerate(zip(a, b, strict=True)) for line in differences(x, y, f"{path}[{i}]")]
    return [] if a == b else [f"{path or '.'}: {json.dumps(a)[:200]} != {json.dumps(b)[:200]}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", default=",".join(SEQUENCES), help="comma-separated sequence names")
    parser.add_argument("--reference", default="kafka")
    parser.add_argument("--candidate", default="odradek")
    parser.add_argument(
        "--run-id",
        help="the unique part of every sequence's names (probe-topic-<ID>, ...), the same on every run: for "
        "recording answers that depend on names (hash orders) to assert verbatim in a test",
    )
    parser.add_argument(
        "--out", type=Path, default=REPORT_DIR, help="where probes.json and probes.md go (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    sequences = [s for s in args.sequences.split(",") if s]
    unknown = [s for s in sequences if s not in SEQUENCES]
    if unknown:
        parser.error(f"unknown sequences {unknown}; known: {sorted(SEQUENCES)}")
    with tempfile.TemporaryDirectory(prefix="probes-") as tmp:
        run_names = {name: _names(args.run_id) for name in sequences}
        profile = SecuredProfile(Path(tmp)) if any(s in SECURED_SEQUENCES for s in sequences) else None
        runs = {
            broker: run_broker(broker, sequences, Path(tmp), profile, run_names)
            for broker in (args.reference, args.candidate)
        }
    ref, cand = runs[args.reference], runs[args.candidate]
    lines = [f"# Raw probes: {args.candidate} against {args.reference}", ""]
    total = 0
    for name in sequences:
        lines.append(f"## {name}")
        for i in range(max(len(ref[name]), len(cand[name]))):
            a = ref[name][i] if i < len(ref[name]) else {"label": "<none>"}
            b = cand[name][i] if i < len(cand[name]) else {"label": "<none>"}
            found = differences(a, b)
            total += bool(found)
            mark = "ok" if not found else "DIFF"
            lines.append(f"- {mark} {a.get('label')} ({a.get('api', '')})")
            lines += [f"    - {line}" for line in found]
        lines.append("")
    lines.insert(1, f"{total} request(s) answered differently.")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "probes.json").write_text(json.dumps(runs, indent=1, sort_keys=True))
    (args.out / "probes.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
