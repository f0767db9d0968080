"""Kafka topics into Parquet with Spark: the ``odradek spark-load`` loader and its Python API.

* :mod:`~odradek.pipeline.loader`: :func:`check`, :func:`load`, :func:`read_committed`
* :mod:`~odradek.pipeline.manifest`: the output directory and its commit protocol
* :mod:`~odradek.pipeline.offsets`: topic and offset questions asked of the broker
* :mod:`~odradek.pipeline.jars`: Spark's Kafka connector jars from Maven Central
* :mod:`~odradek.pipeline.session`: the SparkSession

Only :mod:`~odradek.pipeline.cli` is imported by ``odradek`` itself; it imports PySpark and
confluent-kafka (the ``spark`` extra) only when the command runs.
"""
