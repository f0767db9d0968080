"""Kafka topics into Spark: the ``odradek spark-load`` loader into Parquet, and the ``odradek`` data source.

* :mod:`~odradek.pipeline.loader`: :func:`check`, :func:`load`, :func:`read_committed`
* :mod:`~odradek.pipeline.manifest`: the output directory and its commit protocol
* :mod:`~odradek.pipeline.offsets`: topic and offset questions asked of the broker
* :mod:`~odradek.pipeline.jars`: Spark's Kafka connector jars from Maven Central
* :mod:`~odradek.pipeline.session`: the SparkSession
* :mod:`~odradek.pipeline.datasource`: ``format("odradek")``, a PySpark data source reading topics with
  confluent-kafka (no connector jars): options in :mod:`~odradek.pipeline.source_options`, planning in
  :mod:`~odradek.pipeline.source_plan`, one task's read in :mod:`~odradek.pipeline.range_reader`

Only :mod:`~odradek.pipeline.cli` is imported by ``odradek`` itself; it imports PySpark and
confluent-kafka (the ``spark`` extra) only when the command runs.
"""
