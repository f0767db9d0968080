"""odradek: a Kafka broker in Python that real Kafka clients cannot tell from Apache Kafka."""
