"""``odradek spark-load``: load topics into Parquet with Spark (see :mod:`odradek.pipeline.loader`).

Everything that can be wrong with the input is found before Spark starts and before the output
directory is touched: the connector jars (named by Maven coordinates; none are needed with
``--source odradek``), the broker address, the topics. Such an error prints one
``odradek spark-load: ...`` line and exits 2.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

__all__ = ["COMMAND", "register", "run"]

COMMAND = "spark-load"


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def register(commands: Any) -> None:
    """Add the ``spark-load`` subcommand to an argparse subparsers object."""
    parser = commands.add_parser(COMMAND, help="load Kafka topics into Parquet with Spark, exactly once")
    parser.add_argument("--bootstrap-server", required=True, help="HOST:PORT of the Kafka broker")
    parser.add_argument("--output", required=True, type=Path, help="output directory (shared by every node)")
    parser.add_argument("--topic", action="append", default=[], help="a topic to load (repeatable)")
    parser.add_argument("--pattern", help="load every topic whose whole name matches this regular expression")
    parser.add_argument("--master", default="local[*]", help="Spark master URL (default local[*])")
    parser.add_argument(
        "--jars",
        help="comma-separated connector jars (default: resolved with mvn into ~/.cache/odradek/spark-<version>)",
    )
    parser.add_argument("--conf", action="append", type=_pair, default=[], metavar="KEY=VALUE", help="a Spark conf")
    parser.add_argument(
        "--kafka-option", action="append", type=_pair, default=[], metavar="KEY=VALUE", help="a Kafka consumer config"
    )
    parser.add_argument(
        "--skip-lost-data",
        action="store_true",
        help="skip offsets deleted from the log instead of failing (Spark's failOnDataLoss=false)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the broker (default 30)")
    parser.add_argument(
        "--source",
        choices=("kafka", "odradek"),
        default="kafka",
        help="read with Spark's Kafka connector (default) or odradek's Python data source, which needs no jars",
    )


def run(args: argparse.Namespace) -> int:
    """Run a load from parsed arguments: 0 on success, 2 on bad input; a failing Spark job raises."""
    from odradek.pipeline.jars import ConnectorJarError, check_connector_jars, resolve_connector_jars
    from odradek.pipeline.loader import LoadRequest, check, load
    from odradek.pipeline.offsets import BrokerQueryError
    from odradek.pipeline.session import JavaMissingError, build_session, spark_version

    request = LoadRequest(
        bootstrap=args.bootstrap_server,
        output=args.output,
        topics=tuple(args.topic),
        pattern=args.pattern,
        fail_on_data_loss=not args.skip_lost_data,
        kafka_options=dict(args.kafka_option),
        timeout_s=args.timeout,
        source=args.source,
    )
    try:
        version = spark_version()
        if args.source == "odradek":
            jars = [Path(jar) for jar in args.jars.split(",")] if args.jars else []
        elif args.jars:
            jars = check_connector_jars([Path(jar) for jar in args.jars.split(",")], version)
        else:
            jars = resolve_connector_jars(version)
        bounds = check(request)
        spark = build_session(args.master, jars, conf=dict(args.conf))
        if args.source == "odradek":
            from odradek.pipeline.datasource import register

            register(spark)
    except (ConnectorJarError, BrokerQueryError, JavaMissingError, ValueError, re.error) as exc:
        print(f"odradek {COMMAND}: {exc}", file=sys.stderr)
        return 2
    try:
        result = load(spark, request, bounds)
    finally:
        spark.stop()
    if result.run is None:
        print(f"nothing new to load into {request.output}")
    else:
        print(
            f"loaded offsets of {len(result.ranges)} partitions ({result.offsets} offsets, "
            f"{len(result.files)} files) into {request.output / result.run}"
        )
    return 0
