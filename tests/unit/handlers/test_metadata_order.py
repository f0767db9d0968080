"""The order of a named Metadata answer (`odradek.handlers.metadata_order`): the expected orders
are what Kafka 4.4.0's code path printed on the JVM the probes run it on (scala-library 2.13.18's
``toSet`` of the names, then a Java 17 ``HashSet`` copy of that set without the existing names),
and the probe sequence ``metadata.topic_order`` checks the same rule against the broker itself."""

from __future__ import annotations

import asyncio

import pytest

from odradek.handlers.metadata_order import missing_topics_order, missing_topics_order_in_slices
from odradek.handlers.slices import LoopShare
from odradek.java_order import java_hash_order, scala_immutable_set_order, string_hash


def _kafka_answer_order(requested: list[str], existing: set[str]) -> list[str]:
    in_set_order = scala_immutable_set_order(requested, string_hash)
    known = [name for name in in_set_order if name in existing]
    missing: list[str | None] = [name for name in in_set_order if name not in existing]
    return known + [name for name in missing_topics_order(missing, len(in_set_order), False) if name is not None]


@pytest.mark.parametrize(
    ("requested", "existing", "expected"),
    [
        # Four names: the set keeps request order, the missing ones still go through the hash set.
        (["red", "known", "blue", "green"], {"known"}, ["known", "red", "green", "blue"]),
        (["zeta", "alpha", "beta", "gamma"], {"beta"}, ["beta", "zeta", "alpha", "gamma"]),
        (
            ["orders", "refunds", "payments", "audit", "carts", "clicks", "views"],
            {"orders", "payments", "clicks"},
            ["payments", "orders", "clicks", "carts", "audit", "views", "refunds"],
        ),
        # Twelve names: Java 17's copy constructor sizes the table to 32 buckets, not 16.
        (
            [f"t-{i}" for i in range(12)],
            {f"t-{i}" for i in range(1, 12, 2)},
            ["t-7", "t-1", "t-5", "t-9", "t-3", "t-11", "t-10", "t-0", "t-2", "t-4", "t-6", "t-8"],
        ),
        (["m1", "m2", "m3", "m4", "m5", "m6", "m7"], set(), ["m1", "m2", "m3", "m4", "m5", "m6", "m7"]),
    ],
)
def test_missing_topics_follow_the_existing_ones_in_the_java_hash_set_order(
    requested: list[str], existing: set[str], expected: list[str]
) -> None:
    assert _kafka_answer_order(requested, existing) == expected


def test_the_missing_order_is_not_the_set_order_when_the_hash_set_orders_them_otherwise() -> None:
    in_set_order = scala_immutable_set_order(["orders", "refunds", "payments", "audit", "carts"], string_hash)
    missing: list[str | None] = [name for name in in_set_order if name in {"refunds", "audit", "carts"}]
    assert missing_topics_order(missing, 5, False) != missing


def test_topics_to_create_list_illegal_names_first_then_a_fresh_hash_map_order() -> None:
    missing: list[str | None] = ["t-3", "bad name", "t-1", "t-0", "also/bad", "t-2"]
    ordered = missing_topics_order(missing, 9, True)
    copied = missing_topics_order(missing, 9, False)
    illegal = [name for name in copied if name in {"bad name", "also/bad"}]
    legal = [name for name in copied if name not in {"bad name", "also/bad"}]
    assert ordered == illegal + java_hash_order(legal, string_hash)
    assert ordered[:2] == illegal


@pytest.mark.parametrize("may_create", [False, True])
def test_the_order_in_slices_is_the_same_order(may_create: bool) -> None:
    names: list[str | None] = [*(f"topic-{i}" for i in range(3000)), "bad name", None]
    share = LoopShare()
    try:
        with_hashes = [(name, string_hash(name)) for name in names]
        sliced = asyncio.run(missing_topics_order_in_slices(with_hashes, 4000, may_create, share))
    finally:
        share.done()
    assert sliced == missing_topics_order(names, 4000, may_create)
