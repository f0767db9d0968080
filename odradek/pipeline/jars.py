"""Spark's Kafka connector jars: resolved from Maven Central with ``mvn``, cached outside the repository.

PySpark ships Spark itself but not its Kafka connector. The connector must be the exact Spark version
PySpark runs (``pyspark.__version__``); it needs four artifacts that PySpark's own jars do not hold:
``spark-sql-kafka-0-10_2.13``, ``spark-token-provider-kafka-0-10_2.13``, the ``kafka-clients`` release
that connector's POM names, and ``commons-pool2``. Everything else the connector uses (lz4, snappy,
zstd, slf4j, scala) is already in PySpark's jars.

Resolution: a throwaway POM depending on the connector is handed to ``mvn dependency:copy-dependencies``
filtered to those four artifact ids, so Maven picks the ``kafka-clients`` and ``commons-pool2`` versions
the connector declares. The jars land in ``$ODRADEK_CACHE/spark-<version>/jars`` (default cache
``~/.cache/odradek``) through a staging directory renamed into place, and a ``.complete`` marker is
written last: an interrupted download is never used.

Invariant: :func:`check_connector_jars` accepts a jar list only when every required artifact is present
as an existing file; the error names the missing artifact's Maven coordinates.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ConnectorJarError",
    "cache_root",
    "check_connector_jars",
    "required_artifacts",
    "resolve_connector_jars",
]

RESOLVE_TIMEOUT_S = 900.0

_POM = """\
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.odradek.pipeline</groupId>
  <artifactId>spark-kafka-connector</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.spark</groupId>
      <artifactId>spark-sql-kafka-0-10_2.13</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
</project>
"""


class ConnectorJarError(RuntimeError):
    """A connector jar is missing or could not be resolved; the message names the artifact."""


@dataclass(frozen=True, slots=True)
class Artifact:
    """One required jar: Maven coordinates, with ``version`` None where the connector's POM decides it."""

    group: str
    name: str
    version: str | None

    @property
    def coordinates(self) -> str:
        return f"{self.group}:{self.name}:{self.version or '<the version the connector declares>'}"

    def matches(self, jar: Path) -> bool:
        """True for ``<name>-<version>.jar`` (any version when this artifact's is not fixed)."""
        if self.version is not None:
            return jar.name == f"{self.name}-{self.version}.jar"
        rest = jar.name.removeprefix(f"{self.name}-")
        return rest != jar.name and rest[:1].isdigit() and rest.endswith(".jar")


def required_artifacts(spark_version: str) -> tuple[Artifact, ...]:
    return (
        Artifact("org.apache.spark", "spark-sql-kafka-0-10_2.13", spark_version),
        Artifact("org.apache.spark", "spark-token-provider-kafka-0-10_2.13", spark_version),
        Artifact("org.apache.kafka", "kafka-clients", None),
        Artifact("org.apache.commons", "commons-pool2", None),
    )


def cache_root() -> Path:
    return Path(os.environ.get("ODRADEK_CACHE", Path.home() / ".cache" / "odradek"))


def check_connector_jars(jars: Sequence[Path], spark_version: str) -> list[Path]:
    """The jars, each an existing file, covering every required artifact; else ConnectorJarError."""
    for jar in jars:
        if not jar.is_file():
            raise ConnectorJarError(f"connector jar {jar} does not exist")
    for artifact in required_artifacts(spark_version):
        if not any(artifact.matches(jar) for jar in jars):
            raise ConnectorJarError(
                f"Spark's Kafka connector needs {artifact.coordinates} ({artifact.name}-*.jar), "
                f"which is not among the jars: {', '.join(str(jar) for jar in jars) or 'none given'}"
            )
    return list(jars)


def resolve_connector_jars(spark_version: str, cache: Path | None = None) -> list[Path]:
    """The connector jars for ``spark_version`` from the cache, downloading them with mvn if needed."""
    home = (cache or cache_root()) / f"spark-{spark_version}"
    target = home / "jars"
    if not (home / ".complete").exists():
        _download(spark_version, home, target)
    return check_connector_jars(sorted(target.glob("*.jar")), spark_version)


def _download(spark_version: str, home: Path, target: Path) -> None:
    connector = required_artifacts(spark_version)[0]
    if shutil.which("mvn") is None:
        raise ConnectorJarError(f"mvn is not installed: it fetches {connector.coordinates} from Maven Central")
    home.mkdir(parents=True, exist_ok=True)
    staging = home / "jars.partial"
    shutil.rmtree(staging, ignore_errors=True)
    names = ",".join(artifact.name for artifact in required_artifacts(spark_version))
    with tempfile.TemporaryDirectory(prefix="odradek-spark-pom-") as scratch:
        pom = Path(scratch) / "pom.xml"
        pom.write_text(_POM.format(version=spark_version))
        argv = [
            "mvn", "-q", "-B", "-f", str(pom), "dependency:copy-dependencies", "-DincludeScope=runtime",
            f"-DincludeArtifactIds={names}", f"-DoutputDirectory={staging}",
        ]  # fmt: skip
        result = subprocess.run(argv, capture_output=True, text=True, timeout=RESOLVE_TIMEOUT_S, check=False)
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        detail = (result.stdout + result.stderr).strip().splitlines()
        raise ConnectorJarError(
            f"mvn could not resolve {connector.coordinates} from Maven Central: {' '.join(detail[:3])}"
        )
    check_connector_jars(sorted(staging.glob("*.jar")), spark_version)
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    (home / ".complete").write_text(spark_version + "\n")
