"""The sans-IO Kafka protocol: bytes in, typed messages out, and back."""
