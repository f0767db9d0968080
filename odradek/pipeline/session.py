"""Building the SparkSession the loader (and the Spark tests) run on.

The session always carries the Kafka connector jars (``spark.jars``) and computes dates in UTC
(``spark.sql.session.timeZone``), so a record lands in the same ``date=`` partition whatever the
machine's zone. A ``local`` master binds the driver to 127.0.0.1, and its Python workers (those of the
``odradek`` data source) run this interpreter unless ``PYSPARK_PYTHON`` names another, since PySpark
would otherwise start whatever ``python3`` is first on PATH. Any other master URL keeps Spark's own
driver address, which executors elsewhere must be able to reach, and their own Python.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["JavaMissingError", "build_session", "spark_version"]


class JavaMissingError(RuntimeError):
    """Neither JAVA_HOME nor a ``java`` on PATH: Spark cannot start."""


def spark_version() -> str:
    """The version of the installed PySpark, which the connector jars must match exactly."""
    import pyspark

    return str(pyspark.__version__)


def build_session(
    master: str,
    jars: Sequence[Path],
    app_name: str = "odradek-spark-load",
    conf: Mapping[str, str] | None = None,
) -> SparkSession:
    """A SparkSession on ``master`` with ``jars`` on its class path; ``conf`` entries are applied last."""
    if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
        raise JavaMissingError("Spark needs Java 17 or newer: set JAVA_HOME or put java on PATH")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {
        "spark.jars": ",".join(str(jar) for jar in jars),
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    if master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        settings["spark.driver.host"] = "127.0.0.1"
        settings["spark.driver.bindAddress"] = "127.0.0.1"
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
