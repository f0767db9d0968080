"""compat-tests driver for kcat: one kcat process per step (or per group of records).

Reads one JSON step per line on stdin and writes exactly one JSON observation per line on
stdout (compat-tests' driver protocol); kcat's own stderr is parsed, never forwarded to stdout.

What kcat can and cannot do, and how each step maps onto it:
- produce: ``kcat -P -K <kdelim> -D <mdelim> [-Z] -p <p> -H name=value`` with the records on
  stdin, and ``-v -v`` so that every delivery report ("Message delivered to partition P (offset
  O)" or "Delivery failed for message: <reason>") is printed to stderr. Headers and partition are
  per kcat run, so consecutive records sharing them run together; records left to the
  partitioner run one per process so that each report maps to its record. kcat cannot set a
  record timestamp, an empty value under a null key, or an empty key or value in a run that
  needs -Z for nulls, nor a header whose name holds '=' or whose bytes hold NUL: such steps
  answer unsupported.
- consume: ``kcat -C -o <offset> -c <n> -e -J`` with ``auto.offset.reset=error`` unless the step
  asks for another reset; -e ends the run at the partition's end instead of waiting for the timeout.
  kcat's ``tstype`` becomes the record's ``timestamp_type``.
- list_offsets: ``kcat -Q -t topic:partition:timestamp -J`` (-2 earliest, -1 latest); kcat shows
  no timestamp, so the reply has no ``timestamp`` field, and has no max-timestamp query (unsupported).
- list_topics: ``kcat -L -J``. create_topic and delete_topic: unsupported.
- member_start, members_wait, member_pause, member_stop: ``kcat -G`` child processes (members.py).
- a secured connection (``COMPAT_SECURITY``): librdkafka's ``-X`` settings; SCRAM is unsupported
  when kcat's librdkafka predates 2.6.1 (``SCRAM_FIXED_IN``).

Error names: kcat prints librdkafka's error descriptions; librdkafka's own table (read through
ctypes from the library kcat links) turns a description back into a code and name, and
librdkafka's few names that differ from Kafka's are renamed.
"""

from __future__ import annotations

import argparse
import base64
import ctypes
import ctypes.util
import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

from members import Members, MemberUnsupported, WaitTimedOut

KCAT = os.environ.get("KCAT", "kcat")
#: Client-side size limits are raised so that size errors come from the broker (kcat also sizes
#: its stdin buffer from message.max.bytes).
CLIENT_MAX_BYTES = 16 * 1024 * 1024
#: The protocol's auto_offset_reset as librdkafka's auto.offset.reset ("none" fails: librdkafka's "error").
_RESET = {"earliest": "earliest", "latest": "latest", "none": "error"}
#: kcat's -J "tstype" as Kafka's TimestampType names.
_TIMESTAMP_TYPES = {"create": "CreateTime", "logappend": "LogAppendTime"}
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})


def security_args() -> list[str]:
    """kcat's ``-X`` settings for the secured connection in ``COMPAT_SECURITY`` (PROTOCOL.md), if any:
    librdkafka's own names, and its unsecured JWS for OAUTHBEARER."""
    text = os.environ.get("COMPAT_SECURITY")
    if not text:
        return []
    settings = json.loads(text)
    config = {"security.protocol": settings["protocol"], "ssl.ca.location": settings["ca"]}
    config["ssl.certificate.location"], config["ssl.key.location"] = settings["cert"], settings["key"]
    config["sasl.mechanism"] = settings["mechanism"]
    if settings["mechanism"] == "OAUTHBEARER":
        config["enable.sasl.oauthbearer.unsecure.jwt"] = "true"
        config["sasl.oauthbearer.config"] = f"principal={settings['username']}"
    elif settings["mechanism"]:
        config["sasl.username"], config["sasl.password"] = settings["username"], settings["password"]
    return [arg for key, value in config.items() if value for arg in ("-X", f"{key}={value}")]


# librdkafka's names for broker error codes where they differ from Kafka's.
RDKAFKA_TO_KAFKA = {
    "INVALID_MSG": "CORRUPT_MESSAGE",
    "UNKNOWN_TOPIC_OR_PART": "UNKNOWN_TOPIC_OR_PARTITION",
    "INVALID_MSG_SIZE": "INVALID_FETCH_SIZE",
    "NOT_LEADER_FOR_PARTITION": "NOT_LEADER_OR_FOLLOWER",
    "MSG_SIZE_TOO_LARGE": "MESSAGE_TOO_LARGE",
    "STALE_CTRL_EPOCH": "STALE_CONTROLLER_EPOCH",
    "TOPIC_EXCEPTION": "INVALID_TOPIC_EXCEPTION",
}
# librdkafka's local (negative) errors that stand for a Kafka error.
LOCAL_TO_KAFKA = {
    "_UNKNOWN_TOPIC": "UNKNOWN_TOPIC_OR_PARTITION",
    "_UNKNOWN_PARTITION": "UNKNOWN_TOPIC_OR_PARTITION",
    "_MSG_SIZE_TOO_LARGE": "MESSAGE_TOO_LARGE",
}

DELIVERED = re.compile(rb"Message delivered to partition (-?\d+) \(offset (-?\d+)\)")
FAILED = re.compile(rb"Delivery failed for message: (.*)")
ERROR_LINE = re.compile(rb"^% ERROR: (.*)$", re.MULTILINE)


#: The long-lived group member ops (members.py).
MEMBER_OPS = {
    "member_start": Members.start,
    "members_wait": Members.wait,
    "member_pause": Members.pause,
    "member_stop": Members.stop,
}


class Unsupported(Exception):
    """This client cannot perform the step."""


class StepError(Exception):
    """The step failed with a Kafka error name or CLIENT_ERROR text."""


class _ErrDesc(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("name", ctypes.c_char_p), ("desc", ctypes.c_char_p)]


def _load_error_table() -> list[tuple[str, str]]:
    """(description, Kafka error name) pairs from librdkafka, longest description first."""
    path = ctypes.util.find_library("rdkafka") or "librdkafka.so.1"
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return []
    descs = ctypes.POINTER(_ErrDesc)()
    count = ctypes.c_size_t()
    lib.rd_kafka_get_err_descs(ctypes.byref(descs), ctypes.byref(count))
    table: list[tuple[str, str]] = []
    for i in range(count.value):
        d = descs[i]
        if d.name is None or d.desc is None or d.code == 0:
            continue
        name = d.name.decode()
        local = LOCAL_TO_KAFKA.get(name, "CLIENT_ERROR:" + name)
        kafka = RDKAFKA_TO_KAFKA.get(name, name) if d.code > 0 else local
        table.append((d.desc.decode(), kafka))
    table.sort(key=lambda pair: -len(pair[0]))
    return table


ERROR_TABLE = _load_error_table()


def error_name(text: str) -> str:
    """Kafka's error name for a librdkafka error text, or CLIENT_ERROR:<text>."""
    for desc, name in ERROR_TABLE:
        if desc in text:
            return name
    return "CLIENT_ERROR:" + text.strip()[:160]


def b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def unb64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def from_json_bytes(text: str | None) -> bytes | None:
    """kcat writes raw bytes into JSON strings; they were read back with surrogateescape."""
    return None if text is None else text.encode("utf-8", "surrogateescape")


class Driver:
    """Runs each step as one or more kcat processes against ``bootstrap``."""

    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self.members = Members(KCAT, bootstrap, security_args())

    def run(self, args: list[str], stdin: bytes = b"", timeout: float = 60.0) -> tuple[int, bytes, bytes]:
        cmd = [KCAT, "-b", self.bootstrap, *security_args(), *args]
        try:
            proc = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired as exc:
            return -1, exc.stdout or b"", exc.stderr or b""
        return proc.returncode, proc.stdout, proc.stderr

    def dispatch(self, step: dict[str, Any]) -> dict[str, Any]:
        op = step.get("op")
        if op != "close" and SCRAM_REFUSED:
            raise Unsupported("this kcat's librdkafka cannot log in with SCRAM to Kafka 4")
        if op == "produce":
            return self.produce(step)
        if op == "consume":
            return self.consume(step)
        if op == "list_offsets":
            return self.list_offsets(step)
        if op == "list_topics":
            return self.list_topics()
        if op in MEMBER_OPS:
            try:
                return MEMBER_OPS[op](self.members, step)
            except MemberUnsupported as exc:
                raise Unsupported(str(exc)) from exc
        if op == "close":
            self.members.stop_all()
            return {}
        raise Unsupported(op)

    def list_topics(self) -> dict[str, Any]:
        code, out, err = self.run(["-L", "-J"], timeout=30)
        if code != 0:
            raise StepError(error_name(err.decode(errors="replace")))
        meta = json.loads(out)
        topics = {
            t["topic"]: len(t.get("partitions", []))
            for t in meta.get("topics", [])
            if t["topic"] not in INTERNAL_TOPICS
        }
        return {"topics": topics}

    def list_offsets(self, step: dict[str, Any]) -> dict[str, Any]:
        spec = step.get("spec")
        if spec == "earliest":
            ts = -2
        elif spec == "latest":
            ts = -1
        elif isinstance(spec, dict) and isinstance(spec.get("timestamp"), int):
            ts = spec["timestamp"]
        else:
            raise Unsupported("spec")
        topic, partition = step["topic"], step["partition"]
        code, out, err = self.run(["-Q", "-J", "-t", f"{topic}:{partition}:{ts}"], timeout=30)
        text = err.decode(errors="replace")
        if code != 0 or not out.strip():
            raise StepError(error_name(text))
        part = json.loads(out).get(topic, {}).get(str(partition))
        if part is None:
            raise StepError(error_name(text or "no offset in kcat output"))
        if "error" in part:
            raise StepError(error_name(part["error"]))
        offset = part["offset"]
        return {"offset": offset if offset >= 0 else -1}

    def consume(self, step: dict[str, Any]) -> dict[str, Any]:
        offset = step.get("offset", "earliest")
        if offset == "earliest":
            start = "beginning"
        elif offset == "latest":
            start = "end"
        elif isinstance(offset, int) and offset >= 0:
            start = str(offset)
        else:
            raise Unsupported("offset")
        max_records = step.get("max_records")
        timeout_s = (step.get("timeout_ms") or 5000) / 1000.0
        args = [
            "-C", "-J", "-e", "-q",
            "-t", step["topic"], "-p", str(step["partition"]), "-o", start,
            "-X", f"auto.offset.reset={_RESET[step.get('auto_offset_reset') or 'none']}",
            "-X", f"isolation.level={step.get('isolation') or 'read_uncommitted'}",
            "-X", f"fetch.message.max.bytes={CLIENT_MAX_BYTES}",
        ]  # fmt: skip
        if max_records is not None:
            if max_records <= 0:
                return {"records": []}
            args += ["-c", str(max_records)]
        code, out, err = self.run(args, timeout=timeout_s)
        records = [self._record(line) for line in out.splitlines() if line.strip()]
        if code not in (0, -1) and not records:
            raise StepError(error_name(err.decode(errors="replace")))
        errors = ERROR_LINE.findall(err)
        if errors and not records:
            raise StepError(error_name(errors[0].decode(errors="replace")))
        if max_records is not None:
            records = records[:max_records]
        return {"records": records}

    @staticmethod
    def _record(line: bytes) -> dict[str, Any]:
        msg = json.loads(line.decode("utf-8", "surrogateescape"))
        flat = msg.get("headers") or []
        headers = [[flat[i], b64(from_json_bytes(flat[i + 1]))] for i in range(0, len(flat), 2)]
        return {
            "partition": msg["partition"],
            "offset": msg["offset"],
            "key": b64(from_json_bytes(msg.get("key"))),
            "value": b64(from_json_bytes(msg.get("payload"))),
            "headers": headers,
            "timestamp": msg.get("ts"),
            **({"timestamp_type": _TIMESTAMP_TYPES[msg["tstype"]]} if msg.get("tstype") in _TIMESTAMP_TYPES else {}),
        }

    def produce(self, step: dict[str, Any]) -> dict[str, Any]:
        records = step.get("records") or []
        if any(r.get("timestamp") is not None for r in records):
            raise Unsupported("kcat cannot set record timestamps")
        acks = {"all": "all", "-1": "all", "1": "1", "0": "0"}.get(str(step.get("acks", "all")))
        compression = step.get("compression") or "none"
        if acks is None or compression not in ("none", "gzip", "snappy", "lz4", "zstd"):
            raise Unsupported("acks or compression")
        decoded = [
            (unb64(r.get("key")), unb64(r.get("value")), self._headers(r.get("headers") or []), r.get("partition"))
            for r in records
        ]
        delims = self._delimiters(decoded)
        common = [
            "-P", "-v", "-v", "-t", step["topic"],
            "-K", delims[0], "-D", delims[1],
            "-X", f"acks={acks}",
            "-X", f"compression.codec={compression}",
            "-X", f"enable.idempotence={'true' if step.get('idempotent') else 'false'}",
            "-X", f"linger.ms={int(step.get('linger_ms', 5))}",
            "-X", "message.timeout.ms=20000",
            "-X", "topic.metadata.propagation.max.ms=5000",
            "-X", f"message.max.bytes={CLIENT_MAX_BYTES}",
        ]  # fmt: skip
        results: list[dict[str, Any]] = []
        for group in self._groups(decoded):
            results.extend(self._produce_group(common, delims, group))
        if acks == "0":
            for r in results:
                if "offset" in r:
                    r["offset"] = -1
        return {"results": results}

    @staticmethod
    def _headers(pairs: list[list[Any]]) -> list[bytes]:
        """Each header as one ``-H`` argument: ``name=value``, or ``name`` for a null value."""
        out = []
        for name, value in pairs:
            raw_name = name.encode()
            raw_value = unb64(value)
            if b"=" in raw_name or b"\0" in raw_name or not raw_name or (raw_value and b"\0" in raw_value):
                raise Unsupported("header not expressible as a kcat -H argument")
            out.append(raw_name if raw_value is None else raw_name + b"=" + raw_value)
        return out

    @staticmethod
    def _delimiters(decoded: list[tuple[bytes | None, bytes | None, list[bytes], Any]]) -> tuple[str, str]:
        """Key and message delimiters that occur in no key or value."""
        while True:
            token = secrets.token_hex(8)
            kdelim, mdelim = f"K{token}K", f"M{token}M"
            if not any(
                d.encode() in (part or b"")
                for key, value, _, _ in decoded
                for part in (key, value)
                for d in (kdelim, mdelim)
            ):
                return kdelim, mdelim

    @staticmethod
    def _null_mode(key: bytes | None, value: bytes | None) -> bool | None:
        """Whether the record needs -Z (True), must not have it (False), or either (None)."""
        if key is None and value == b"":
            raise Unsupported("kcat skips an empty message with no key")
        needs = value is None
        forbids = key == b"" or value == b""
        if needs and forbids:
            raise Unsupported("empty key or value next to a null one")
        return True if needs else (False if forbids else None)

    def _groups(
        self, decoded: list[tuple[bytes | None, bytes | None, list[bytes], Any]]
    ) -> Iterator[tuple[bool, list[bytes], Any, list[tuple[bytes | None, bytes | None]]]]:
        """Consecutive records sharing headers, an explicit partition and a -Z mode."""
        group: list[tuple[bytes | None, bytes | None]] = []
        mode: bool | None = None
        current: tuple[list[bytes], Any] | None = None
        for key, value, headers, partition in decoded:
            rec_mode = self._null_mode(key, value)
            same = (
                current is not None
                and partition is not None
                and current == (headers, partition)
                and (rec_mode is None or mode is None or rec_mode == mode)
            )
            if not same and group and current is not None:
                yield bool(mode), current[0], current[1], group
                group, mode = [], None
            current = (headers, partition)
            group.append((key, value))
            mode = rec_mode if rec_mode is not None else mode
        if group and current is not None:
            yield bool(mode), current[0], current[1], group

    def _produce_group(
        self,
        common: list[str],
        delims: tuple[str, str],
        group: tuple[bool, list[bytes], Any, list[tuple[bytes | None, bytes | None]]],
    ) -> list[dict[str, Any]]:
        null_mode, headers, partition, records = group
        kdelim, mdelim = delims[0].encode(), delims[1].encode()
        args = [*common, "-p", str(-1 if partition is None else partition)]
        if null_mode:
            args.append("-Z")
        stdin = b""
        for key, value in records:
            line = (value or b"") if key is None and value is not None else (key or b"") + kdelim + (value or b"")
            stdin += line + mdelim
        cmd_args: list[Any] = list(args)
        for h in headers:
            cmd_args += [b"-H", h]
        code, _, err = self.run(cmd_args, stdin=stdin, timeout=60)
        results: list[dict[str, Any]] = []
        for line in err.splitlines():
            if m := DELIVERED.search(line):
                results.append({"partition": int(m.group(1)), "offset": int(m.group(2))})
            elif m := FAILED.search(line):
                results.append({"error": error_name(m.group(1).decode(errors="replace"))})
        if len(results) < len(records):
            errors = ERROR_LINE.findall(err)
            reason = errors[0].decode(errors="replace") if errors else f"kcat exited {code} without a report"
            results += [{"error": error_name(reason)}] * (len(records) - len(results))
        return results[: len(records)]


def kcat_version() -> str:
    try:
        out = subprocess.run([KCAT, "-V"], capture_output=True, check=False, timeout=10).stdout.decode()
    except (OSError, subprocess.TimeoutExpired):
        return "kcat unknown"
    m = re.search(r"Version (\S+).*?librdkafka (\S+)", out)
    return f"kcat {m.group(1)} (librdkafka {m.group(2)})" if m else "kcat unknown"


#: librdkafka before 2.6.1 repeats the client nonce in SCRAM's client-final message; Apache Kafka 4
#: checks the nonce as RFC 5802 says and refuses the login (so does odradek), so such a kcat cannot
#: use SCRAM with Kafka 4 at all and every step of a SCRAM connection is unsupported.
SCRAM_FIXED_IN = (2, 6, 1)


def _scram_refused() -> bool:
    text = os.environ.get("COMPAT_SECURITY")
    if not text or not str(json.loads(text).get("mechanism") or "").startswith("SCRAM-"):
        return False
    m = re.search(r"librdkafka (\d+)\.(\d+)\.(\d+)", kcat_version())
    return m is None or tuple(int(part) for part in m.groups()) < SCRAM_FIXED_IN


SCRAM_REFUSED = _scram_refused()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", required=True)
    args = parser.parse_args()
    driver = Driver(args.bootstrap)

    def emit(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    emit({"ready": True, "client": kcat_version()})
    for line in sys.stdin:
        if not line.strip():
            continue
        step = json.loads(line)
        reply: dict[str, Any] = {"step": step.get("id")}
        try:
            reply |= {"ok": True, **driver.dispatch(step)}
        except Unsupported:
            reply |= {"ok": False, "unsupported": True}
        except StepError as exc:
            reply |= {"ok": False, "error": str(exc)}
        except WaitTimedOut as exc:
            reply |= {"ok": False, "error": str(exc), **exc.fields}
        except Exception as exc:  # a driver bug must still answer the step
            print(f"driver error: {exc!r}", file=sys.stderr)
            reply |= {"ok": False, "error": f"CLIENT_ERROR:driver: {exc}"[:200]}
        emit(reply)
        if step.get("op") == "close":
            break
    driver.members.stop_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
