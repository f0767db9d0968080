"""Which client quota entities and values Kafka accepts, with its messages, in its order, for those
it refuses (the same requests are compared with Apache Kafka in compat-tests/probes/security.py)."""

from __future__ import annotations

import asyncio

import pytest

from odradek.handlers.quotas import unresolvable_hosts
from odradek.security import quota_store
from odradek.security.quota_store import Entity, validate_entity

USER_KEYS = quota_store.KEYS_BY_TYPE["user"]
IP_KEYS = quota_store.KEYS_BY_TYPE["ip"]
TOO_LARGE = "Proposed value for {} is too large for {}."


def test_an_ip_entity_names_an_address_a_resolvable_host_or_the_default() -> None:
    entities: list[Entity] = [(("ip", "127.0.0.1"),), (("ip", "::1"),), (("ip", "localhost"),), (("ip", None),)]
    assert asyncio.run(unresolvable_hosts(entities)) == set()
    assert [validate_entity(entity) for entity in entities] == [None] * 4


def test_an_ip_entity_that_neither_is_an_address_nor_resolves_is_refused_with_kafkas_message() -> None:
    entities: list[Entity] = [(("ip", "not-an-ip.invalid"),), (("ip", "256.0.0.1"),), (("user", "not-an-ip.invalid"),)]
    unresolvable = asyncio.run(unresolvable_hosts(entities))
    assert unresolvable == {"not-an-ip.invalid", "256.0.0.1"}, "only ip entities are looked up"
    assert validate_entity(entities[0], unresolvable) == "not-an-ip.invalid is not a valid IP or resolvable host."
    assert validate_entity(entities[2], unresolvable) is None


def test_the_combination_is_refused_before_the_ip_entitys_name_is_looked_at() -> None:
    entity: Entity = (("ip", "not-an-ip.invalid"), ("user", "alice"))
    message = validate_entity(entity, {"not-an-ip.invalid"})
    assert message == "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId"


@pytest.mark.parametrize(
    ("entity", "message"),
    [
        ((), "Invalid empty client quota entity"),
        ((("user", ""),), "Empty user not supported"),
        ((("nobody", "x"),), "Unhandled client quota entity type: nobody"),
        ((("client-id", ""), ("user", "alice")), "Empty client-id not supported"),
    ],
)
def test_types_and_names_are_checked_first(entity: Entity, message: str) -> None:
    assert validate_entity(entity) == message


def test_an_entitys_types_are_listed_in_the_order_of_kafkas_map_of_four_buckets() -> None:
    """``new HashMap<>(2)`` holding user and ip iterates user (bucket 1) before ip (bucket 3); a
    default map of 16 buckets would put ip (7) before user (13)."""
    entity: Entity = (("ip", "127.0.0.1"), ("user", "alice"))
    assert quota_store.entity_entries(entity) == [("user", "alice"), ("ip", "127.0.0.1")]
    assert quota_store.entity_text(entity) == "ClientQuotaEntity(entries={user=alice, ip=127.0.0.1})"


@pytest.mark.parametrize(
    ("allowed", "key", "value", "message"),
    [
        (USER_KEYS, "no.such.quota", -1.5, "Invalid configuration key no.such.quota"),
        (IP_KEYS, "producer_byte_rate", 10.0, "Invalid configuration key producer_byte_rate"),
        (USER_KEYS, "consumer_byte_rate", -1.5, "Quota consumer_byte_rate must be greater than 0"),
        (USER_KEYS, "request_percentage", 0.0, "Quota request_percentage must be greater than 0"),
        (USER_KEYS, "producer_byte_rate", 1e19, TOO_LARGE.format("producer_byte_rate", "a LONG")),
        (IP_KEYS, "connection_creation_rate", 3e9, TOO_LARGE.format("connection_creation_rate", "an INT")),
        (USER_KEYS, "producer_byte_rate", 1.5, "producer_byte_rate cannot be a fractional value."),
        (USER_KEYS, "producer_byte_rate", float("inf"), TOO_LARGE.format("producer_byte_rate", "a LONG")),
    ],
)
def test_a_value_is_refused_with_the_first_of_kafkas_checks_it_fails(
    allowed: frozenset[str], key: str, value: float, message: str
) -> None:
    assert quota_store.value_refusal(allowed, key, value) == message


@pytest.mark.parametrize(
    ("key", "value"), [("request_percentage", 50.5), ("producer_byte_rate", 1024.0), ("producer_byte_rate", 2.0000001)]
)
def test_fractions_are_kept_where_kafka_keeps_them(key: str, value: float) -> None:
    assert quota_store.value_refusal(USER_KEYS, key, value) is None
