"""An example application: a consumer group that prices orders and publishes the results."""
