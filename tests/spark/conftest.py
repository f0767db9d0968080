"""Spark's Kafka connector against an odradek broker: one SparkSession and one broker per session.

Spark's start-up (a JVM, about 15 s on two cores) is paid once. The broker is ``python -m odradek run``
(real clock: Spark's consumers long-poll). Without java or mvn every test here is skipped with a reason
that says so; with both, the connector jars are resolved from Maven Central into the user's cache.

``ODRADEK_SPARK_TEST_BOOTSTRAP=HOST:PORT`` runs the same tests against a broker already running there
(Apache Kafka, to tell a difference in odradek from a difference in Spark) instead of starting one;
``ODRADEK_SPARK_TEST_BROKER`` then names that broker (``kafka``, ``odradek``; default ``external``)
for the tests whose expectations differ while odradek lacks a feature (``broker_kind``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from tests.integration.conftest import BrokerProcess
from tests.spark.helpers import Kafka

MISSING_TOOLS = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "spark: needs java and mvn (Spark and its Kafka connector)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(pytest.mark.spark)
        if MISSING_TOOLS:
            reason = f"SPARK TESTS NOT RUN: {' and '.join(MISSING_TOOLS)} not found on PATH"
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def connector_jars() -> list[Path]:
    from odradek.pipeline.jars import resolve_connector_jars
    from odradek.pipeline.session import spark_version

    return resolve_connector_jars(spark_version())


@pytest.fixture(scope="session")
def spark(connector_jars: list[Path]) -> Iterator[SparkSession]:
    from odradek.pipeline.session import build_session

    conf = {"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"}
    session = build_session("local[2]", connector_jars, "odradek-spark-tests", conf)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    external = os.environ.get("ODRADEK_SPARK_TEST_BOOTSTRAP")
    if external:
        yield external
        return
    proc = BrokerProcess(tmp_path_factory.mktemp("spark-broker-data"))
    proc.start()
    yield proc.bootstrap
    proc.stop()


@pytest.fixture(scope="session")
def broker_kind(bootstrap: str) -> str:
    """Which broker the suite runs against: ``odradek`` when it started one itself."""
    if os.environ.get("ODRADEK_SPARK_TEST_BOOTSTRAP"):
        return os.environ.get("ODRADEK_SPARK_TEST_BROKER", "external")
    return "odradek"


@pytest.fixture(scope="session")
def kafka(bootstrap: str) -> Iterator[Kafka]:
    client = Kafka(bootstrap)
    yield client
    client.close()
