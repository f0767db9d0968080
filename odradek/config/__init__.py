"""Broker and topic configuration: one definition per Kafka config key, everything derived.

- `odradek.config.keys`: what a key is (`ConfigKey`, `ConfigType`, `Scope`, `Dynamic`,
  validators, `check_value`);
- `odradek.config.table`: every key, once (`TOPIC_KEYS`, `BROKER_KEYS`);
- `odradek.config.broker`: `BrokerConfig` and `load_config` (server.properties + overrides);
- `odradek.config.values`: the one `effective_value`, `with_layer`, `topic_configs` and
  `log_config_for` (the typed `LogConfig` of a topic);
- `odradek.config.validation`: topic overrides and dynamic broker layers, in Kafka's words;
- `odradek.config.alter`: the one `apply_incremental` (topics and brokers);
- `odradek.config.describe`: DescribeConfigs entries;
- `odradek.config.dynamic_store`: where the dynamic broker layers are kept.
"""

from odradek.config.alter import OpType, apply_incremental
from odradek.config.broker import BrokerConfig, ConfigError, load_config
from odradek.config.describe import DescribedConfig, Synonym, describe_broker, describe_cluster, describe_topic
from odradek.config.keys import ConfigKey, ConfigType, Dynamic, Scope, Source
from odradek.config.table import BROKER_KEYS, TOPIC_KEYS
from odradek.config.validation import DynamicConfigError, InvalidConfig, validate, validate_layer
from odradek.config.values import effective_value, log_config_for, topic_configs, with_layer

__all__ = [
    "BROKER_KEYS",
    "TOPIC_KEYS",
    "BrokerConfig",
    "ConfigError",
    "ConfigKey",
    "ConfigType",
    "DescribedConfig",
    "Dynamic",
    "DynamicConfigError",
    "InvalidConfig",
    "OpType",
    "Scope",
    "Source",
    "Synonym",
    "apply_incremental",
    "describe_broker",
    "describe_cluster",
    "describe_topic",
    "effective_value",
    "load_config",
    "log_config_for",
    "topic_configs",
    "validate",
    "validate_layer",
    "with_layer",
]
