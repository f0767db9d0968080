"""Feature levels: finalized levels stay inside the supported ranges, level 0 is not listed, and
every change moves the epoch on."""

from __future__ import annotations

import pytest

from odradek.cluster.features import KAFKA_4_4, TRANSACTION_VERSION, FeatureLevels, FeatureRange, InvalidFeatureLevel


def test_kafka_defaults_finalize_transactions_v2() -> None:
    assert KAFKA_4_4.level(TRANSACTION_VERSION) == 2
    assert KAFKA_4_4.level("kraft.version") == 0
    assert "kraft.version" not in KAFKA_4_4.finalized


def test_a_change_applies_its_levels_and_bumps_the_epoch() -> None:
    changed = KAFKA_4_4.with_levels({TRANSACTION_VERSION: 1, "kraft.version": 1})
    assert (changed.level(TRANSACTION_VERSION), changed.level("kraft.version")) == (1, 1)
    assert changed.epoch == KAFKA_4_4.epoch + 1
    off = changed.with_levels({TRANSACTION_VERSION: 0})
    assert TRANSACTION_VERSION not in off.finalized and off.level(TRANSACTION_VERSION) == 0
    assert KAFKA_4_4.level(TRANSACTION_VERSION) == 2


@pytest.mark.parametrize("changes", [{TRANSACTION_VERSION: 3}, {"metadata.version": 6}, {"unknown.version": 1}])
def test_levels_outside_the_supported_range_are_refused(changes: dict[str, int]) -> None:
    with pytest.raises(InvalidFeatureLevel):
        KAFKA_4_4.with_levels(changes)
    with pytest.raises(InvalidFeatureLevel):
        FeatureLevels(KAFKA_4_4.supported, changes, 0)


def test_api_versions_v3_hides_ranges_starting_at_zero() -> None:
    levels = FeatureLevels({"a": FeatureRange(0, 1), "b": FeatureRange(1, 2)}, {"b": 2}, 5)
    assert [name for name, _ in levels.supported_for(3)] == ["b"]
    assert [name for name, _ in levels.supported_for(4)] == ["a", "b"]
