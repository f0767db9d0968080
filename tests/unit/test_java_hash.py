"""Java's String.hashCode: the one helper every Kafka-visible order and placement uses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def _unit_by_unit(text: str) -> int:
    """The definition, one UTF-16 unit at a time."""
    units = text.encode("utf-16-be", "surrogatepass")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i : i + 2], "big")) % 2**32
    return h - 2**32 if h >= 2**31 else h


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_an_ascii_string_hashes_as_the_definition_says(text: str) -> None:
    assert java_string_hash(text) == _unit_by_unit(text)


@pytest.mark.parametrize("length", [1, 30, 31, 3999, 4000, 4001, 5000])
def test_strings_of_every_length_hash_as_the_definition_says(length: int) -> None:
    for edge in ("\x00", "\x1e", "\x1f", ">", "\x7f", "a"):
        text = (edge * length)[:length]
        assert java_string_hash(text) == _unit_by_unit(text)
    mixed = "".join(chr(i % 128) for i in range(length))
    assert java_string_hash(mixed) == _unit_by_unit(mixed)
