"""The Java hash-table orders odradek answers in, against what a JVM printed for the same keys."""

from __future__ import annotations

from collections.abc import Generator

from odradek.java_hash import java_string_hash
from odradek.java_order import (
    java_hash_capacity,
    java_hash_order,
    java_hash_set_copy_order,
    map_hash,
    scala_immutable_set_order,
    scala_immutable_set_order_in_steps,
    scala_improved_hash,
    scala_mutable_hash_capacity,
    scala_mutable_hash_order,
    scala_mutable_hash_order_in_steps,
    string_hash,
)


def _run_counting_stops(steps: Generator[None, None, list[str]]) -> tuple[list[str], int]:
    """A stepped order run to its end: its value and how many times it stopped on the way."""
    stops = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            order: list[str] = done.value
            return order, stops
        stops += 1


def test_a_hash_set_of_strings_iterates_as_java_does() -> None:
    keys = [
        "topic-10",
        "topic-2",
        "Aa",
        "BB",
        "zeta",
        "alpha",
        "SCRAM-SHA-512",
        "PLAIN",
        "OAUTHBEARER",
        "SCRAM-SHA-256",
    ]
    # java.util.HashSet after adding the keys in this order, as printed by Java 17
    expected = [
        "Aa",
        "BB",
        "zeta",
        "SCRAM-SHA-512",
        "PLAIN",
        "SCRAM-SHA-256",
        "alpha",
        "OAUTHBEARER",
        "topic-2",
        "topic-10",
    ]
    assert java_hash_order(keys, java_string_hash) == expected


def test_a_set_past_three_quarters_of_sixteen_doubles_its_table() -> None:
    keys = [f"t{i}" for i in range(20)]
    expected = [
        "t4",
        "t5",
        "t6",
        "t7",
        "t8",
        "t9",
        "t10",
        "t12",
        "t11",
        "t14",
        "t13",
        "t16",
        "t15",
        "t18",
        "t17",
        "t0",
        "t1",
        "t19",
        "t2",
        "t3",
    ]
    assert java_hash_order(keys, java_string_hash) == expected


def test_a_repeated_key_keeps_its_first_place() -> None:
    assert java_hash_order(["b", "a", "b"], java_string_hash) == java_hash_order(["b", "a"], java_string_hash)


def test_map_hash_is_javas_with_null_values() -> None:
    assert map_hash({"user": "alice", "client-id": None}) == -1807702104
    assert map_hash({"user": None}) == 3599307
    assert string_hash(None) == 0


def test_a_scala_immutable_set_keeps_insertion_order_up_to_four() -> None:
    assert scala_immutable_set_order(["t-c", "t-a", "t-c", "t-e", "t-b"][:4], string_hash) == ["t-c", "t-a", "t-e"]
    assert scala_immutable_set_order(["d", "c", "b", "a"], string_hash) == ["d", "c", "b", "a"]


def test_a_scala_immutable_set_past_four_iterates_its_champ_trie() -> None:
    # What scala-library 2.13.18 printed for (names).toSet (Kafka's Metadata topic set).
    names = ["t-c", "t-a", "t-c", "t-e", "t-b", "t-d", "t-a", "t-f"]
    assert scala_immutable_set_order(names, string_hash) == ["t-f", "t-e", "t-d", "t-a", "t-c", "t-b"]
    names = ["orders", "payments", "clicks", "views", "users", "carts", "refunds", "sessions", "audit-log",
             "__consumer_offsets", "metrics", "alerts"]  # fmt: skip
    assert scala_immutable_set_order(names, string_hash) == [
        "refunds", "users", "sessions", "__consumer_offsets", "orders", "metrics", "alerts", "carts", "audit-log",
        "payments", "clicks", "views",
    ]  # fmt: skip


def test_a_java_hash_set_copy_is_sized_from_the_copied_set() -> None:
    # "t-1" and "t-14" share a bucket of 16 (kept in insertion order) and not of 32, where "t-14"
    # comes first: a copy of eleven keys has 16 buckets, one of twelve has 32.
    assert java_hash_set_copy_order(["t-1", "t-14"], string_hash, 11) == ["t-1", "t-14"]
    assert java_hash_set_copy_order(["t-1", "t-14"], string_hash, 12) == ["t-14", "t-1"]


def test_a_presized_hash_map_starts_at_its_initial_capacity_rounded_up_and_doubles_past_three_quarters() -> None:
    assert [java_hash_capacity(n, initial_capacity=n) for n in (1, 2, 3, 4, 5, 12, 13)] == [2, 4, 4, 8, 8, 16, 32]
    assert java_hash_capacity(4, initial_capacity=2) == 8


def test_a_presized_hash_map_of_two_keys_iterates_its_four_buckets() -> None:
    # "user" falls in bucket 1 of 4 and 13 of 16, "ip" in 3 of 4 and 7 of 16
    assert java_hash_order(["ip", "user"], string_hash, initial_capacity=2) == ["user", "ip"]
    assert java_hash_order(["ip", "user"], string_hash) == ["ip", "user"]


def test_keys_with_one_hash_keep_the_order_they_were_added_in() -> None:
    # "Aa", "BB" and "C#" share Java's hash 2112: what scala-library 2.13.18 printed for (names).toSet.
    assert java_string_hash("Aa") == java_string_hash("BB") == java_string_hash("C#")
    assert scala_immutable_set_order(["BB", "x1", "Aa", "y2", "z3", "C#"], string_hash) == [
        "z3", "BB", "Aa", "C#", "y2", "x1",
    ]  # fmt: skip
    assert scala_immutable_set_order(["Aa", "x1", "BB", "y2", "z3", "C#"], string_hash) == [
        "z3", "Aa", "BB", "C#", "y2", "x1",
    ]  # fmt: skip


def test_a_large_set_is_ordered_in_steps_of_about_the_given_size() -> None:
    names = [f"topic-{i}" for i in range(5000)]
    improved = [(name, scala_improved_hash(string_hash(name))) for name in names]
    order, stops = _run_counting_stops(scala_immutable_set_order_in_steps(improved, 100))
    assert order == scala_immutable_set_order(names, string_hash)
    assert sorted(order) == sorted(names)
    assert stops >= len(names) // 100


def test_a_scala_mutable_hash_set_doubles_before_the_key_that_reaches_three_quarters() -> None:
    assert [scala_mutable_hash_capacity(size) for size in (0, 11, 12, 23, 24, 47, 48)] == [16, 16, 32, 32, 64, 64, 128]


def test_a_scala_mutable_hash_set_orders_a_bucket_by_hash_not_by_insertion() -> None:
    # "Aa" and "BB" share one hash (2112, bucket 0 of 16) and keep the order they came in; "x" (120)
    # and "h" (104) share bucket 8 and are listed by hash, whatever the order they came in.
    assert scala_mutable_hash_order(["x", "BB", "h", "Aa"], string_hash) == ["BB", "Aa", "h", "x"]
    assert scala_mutable_hash_order(["h", "Aa", "x", "BB"], string_hash) == ["Aa", "BB", "h", "x"]


def test_a_large_scala_mutable_hash_set_is_ordered_in_steps_of_about_the_given_size() -> None:
    names = [f"topic-{i}" for i in range(5000)]
    order, stops = _run_counting_stops(
        scala_mutable_hash_order_in_steps([(name, string_hash(name)) for name in names], 100)
    )
    capacity = scala_mutable_hash_capacity(len(names))
    spread = [(h & 0xFFFFFFFF) ^ ((h & 0xFFFFFFFF) >> 16) for h in map(string_hash, order)]
    positions = [(s & (capacity - 1), s - (1 << 32) if s & 0x80000000 else s) for s in spread]
    assert positions == sorted(positions)
    assert order == scala_mutable_hash_order(names, string_hash)
    assert sorted(order) == sorted(names)
    assert stops >= len(names) // 100
