"""Feature versions: the ranges this node supports and the levels the cluster has finalized.

In KRaft every broker reports the feature versions it can run (``supported``) and the
controller finalizes one level per feature for the whole cluster (``finalized``); ApiVersions
v3+ carries both, with the epoch of the finalized set, and clients decide from them what to use
(the Java producer uses transactions v2 when ``transaction.version`` is finalized at 2 or more).
A single combined-mode node is its own controller, so both live here.

`KAFKA_4_4` is what Apache Kafka 4.4.0 advertises on a single combined node formatted with its
defaults (probed over a raw socket): the same ranges, the same finalized levels, listed in the
order Kafka lists them (its hash-map order), so an answer compares equal entry by entry.

Rules (Kafka's):
- a finalized level lies inside the feature's supported range; level 0 means "off" and is not
  listed among the finalized features;
- ApiVersions v3 lists only the supported features whose minimum is at least 1 (older clients
  cannot parse a range starting at 0); v4+ lists them all;
- the epoch grows with every change of the finalized levels (Kafka's is the metadata log offset,
  so only its growth is behaviour).

`FeatureLevels` is an immutable value; whoever changes the levels (UpdateFeatures) builds a new
one with `FeatureLevels.with_levels` and publishes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "ELIGIBLE_LEADER_REPLICAS_VERSION",
    "GROUP_VERSION",
    "KAFKA_4_4",
    "KRAFT_VERSION",
    "METADATA_VERSION",
    "SHARE_VERSION",
    "STREAMS_VERSION",
    "TRANSACTION_VERSION",
    "FeatureLevels",
    "FeatureRange",
    "InvalidFeatureLevel",
]

METADATA_VERSION = "metadata.version"
KRAFT_VERSION = "kraft.version"
GROUP_VERSION = "group.version"
TRANSACTION_VERSION = "transaction.version"
ELIGIBLE_LEADER_REPLICAS_VERSION = "eligible.leader.replicas.version"
SHARE_VERSION = "share.version"
STREAMS_VERSION = "streams.version"


class InvalidFeatureLevel(ValueError):
    """A level outside the feature's supported range, or a feature this node does not know."""


@dataclass(frozen=True, slots=True)
class FeatureRange:
    min_version: int
    max_version: int

    def __contains__(self, level: object) -> bool:
        return isinstance(level, int) and self.min_version <= level <= self.max_version


@dataclass(frozen=True, slots=True)
class FeatureLevels:
    """Supported ranges and finalized levels (both in advertising order), and their epoch."""

    supported: Mapping[str, FeatureRange]
    finalized: Mapping[str, int]
    epoch: int

    def __post_init__(self) -> None:
        for name, level in self.finalized.items():
            self._check(name, level)
        object.__setattr__(self, "supported", MappingProxyType(dict(self.supported)))
        object.__setattr__(self, "finalized", MappingProxyType({n: v for n, v in self.finalized.items() if v != 0}))

    def _check(self, name: str, level: int) -> None:
        supported = self.supported.get(name)
        if supported is None:
            raise InvalidFeatureLevel(f"feature {name} is not supported")
        if level != 0 and level not in supported:
            raise InvalidFeatureLevel(
                f"level {level} of {name} is outside the supported range "
                f"[{supported.min_version}, {supported.max_version}]"
            )

    def level(self, name: str) -> int:
        """The finalized level of ``name``; 0 when it is not finalized."""
        return self.finalized.get(name, 0)

    def with_levels(self, changes: Mapping[str, int]) -> FeatureLevels:
        """These levels with ``changes`` applied (0 turns a feature off; a newly finalized
        feature is listed last) and the next epoch.

        Raises `InvalidFeatureLevel` for an unknown feature or a level outside its range."""
        for name, level in changes.items():
            self._check(name, level)
        finalized = {**self.finalized, **changes}
        return FeatureLevels(self.supported, finalized, self.epoch + 1)

    def supported_for(self, api_versions_version: int) -> list[tuple[str, FeatureRange]]:
        """The supported features ApiVersions of ``api_versions_version`` lists (v3: minimum >= 1)."""
        return [
            (name, supported)
            for name, supported in self.supported.items()
            if api_versions_version >= 4 or supported.min_version >= 1
        ]


KAFKA_4_4 = FeatureLevels(
    supported={
        GROUP_VERSION: FeatureRange(0, 1),
        KRAFT_VERSION: FeatureRange(0, 1),
        METADATA_VERSION: FeatureRange(7, 33),
        SHARE_VERSION: FeatureRange(0, 2),
        STREAMS_VERSION: FeatureRange(0, 1),
        TRANSACTION_VERSION: FeatureRange(0, 2),
        ELIGIBLE_LEADER_REPLICAS_VERSION: FeatureRange(0, 1),
    },
    finalized={
        GROUP_VERSION: 1,
        STREAMS_VERSION: 1,
        TRANSACTION_VERSION: 2,
        ELIGIBLE_LEADER_REPLICAS_VERSION: 1,
        SHARE_VERSION: 2,
        METADATA_VERSION: 33,
    },
    epoch=1,
)
"""Apache Kafka 4.4.0's defaults on a freshly formatted single combined node."""
