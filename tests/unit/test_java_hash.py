"""Java's String.hashCode: the one helper every Kafka-visible order and placement uses."""

from __future__ import annotations

from odradek.java_hash import java_string_hash


def test_known_values_of_java_string_hash_code() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("Aa") == java_string_hash("BB") == 2112
    assert java_string_hash("polygenelubricants") == -(2**31)


def test_a_character_outside_the_bmp_counts_as_two_utf16_units() -> None:
    # U+1F600 is the surrogate pair D83D DE00 in Java's UTF-16 string, not one code point.
    assert java_string_hash("\U0001f600") == 0xD83D * 31 + 0xDE00
    assert java_string_hash("\U0001f600") != ord("\U0001f600")
    assert java_string_hash("g\U0001f600") == (ord("g") * 31 * 31 + 0xD83D * 31 + 0xDE00) & 0xFFFFFFFF


def test_a_lone_surrogate_hashes_like_java() -> None:
    assert java_string_hash("\ud83d") == 0xD83D
