"""Answering as a chosen Apache Kafka release did: its ApiVersions, and its refusals.

With a release to emulate (`odradek.emulation.load_release`), the dispatcher asks `admit`
before routing a request, and rewrites ApiVersions answers with `advertise`:

- ApiVersions lists exactly the release's API ranges (and, from v3, its supported and finalized
  features), so a client negotiates the versions it would with that release;
- a request the release would refuse is refused as the release refused it, from the captured
  refusal data: an API key it did not advertise and a version above its range (the connection
  closes, as every captured release did), an ApiVersions version above its range (a v0 answer
  with the release's error code and API list), Produce v0 and ListOffsets v0 where the release
  advertised but refused them (4.0 on: the connection closes);
- a request the release accepted goes to odradek's handler.  Where the release advertised a
  range odradek does not serve (an API odradek lacks, or old versions such as Fetch v0-3), the
  connection closes with a log line that names the emulation gap.
"""

from __future__ import annotations

from typing import cast

from odradek.emulation import Outcome, ReleaseApis
from odradek.handlers.registry import Registry
from odradek.wire.api import ApiKey
from odradek.wire.errors import ErrorCode, ProtocolViolation
from odradek.wire.messages.api_versions import ApiVersionsResponse, ApiVersionsResponseValue
from odradek.wire.schema import StructValue

__all__ = ["Emulation"]

_ApiVersion = ApiVersionsResponse.ApiVersion
_Supported = ApiVersionsResponse.SupportedFeatureKey
_Finalized = ApiVersionsResponse.FinalizedFeatureKey


class Emulation:
    """One release's view of the APIs; shared by every connection (it holds no state)."""

    def __init__(self, release: ReleaseApis, registry: Registry) -> None:
        self.release = release
        self._registry = registry
        self._entries = [_ApiVersion(api_key=k, min_version=lo, max_version=hi) for k, (lo, hi) in release.apis.items()]
        refusals = release.refusals
        self._above_max_entries = [
            _ApiVersion(api_key=k, min_version=lo, max_version=hi)
            for k, (lo, hi) in refusals.api_versions_above_max_apis.items()
        ]
        self._closed_v0: dict[int, bool] = {
            ApiKey.PRODUCE: refusals.produce_v0 is Outcome.CLOSED,
            ApiKey.LIST_OFFSETS: refusals.list_offsets_v0 is Outcome.CLOSED,
        }

    def admit(self, api_key: int, version: int) -> ApiVersionsResponseValue | None:
        """None when the request may go to its handler; the v0 ApiVersions answer for an
        ApiVersions version above the release's; `ProtocolViolation` where the release closed."""
        release = self.release
        name = f"Kafka {release.release}"
        bounds = release.apis.get(api_key)
        if bounds is None:
            raise ProtocolViolation(f"API key {api_key} is not served by the emulated {name}")
        if not bounds[0] <= version <= bounds[1]:
            if api_key == ApiKey.API_VERSIONS:
                return ApiVersionsResponse(
                    error_code=release.refusals.api_versions_above_max_error, api_keys=self._above_max_entries
                )
            raise ProtocolViolation(f"{release.api_names[api_key]} v{version} is not served by the emulated {name}")
        if version == 0 and self._closed_v0.get(api_key, False):
            raise ProtocolViolation(f"{release.api_names[api_key]} v0 is refused by the emulated {name}")
        if not self._registry.serves(api_key, version):
            raise ProtocolViolation(
                f"{release.api_names[api_key]} v{version} is advertised by the emulated {name} "
                "but odradek does not implement it"
            )
        return None

    def advertise(self, answer: StructValue) -> StructValue:
        """An ApiVersions answer as the release gave it: its API ranges and features."""
        response = cast(ApiVersionsResponseValue, answer)
        if response.error_code != ErrorCode.NONE:
            return response
        release = self.release
        response.api_keys = list(self._entries)
        response.supported_features = [
            _Supported(name=name, min_version=lo, max_version=hi)
            for name, (lo, hi) in release.supported_features.items()
        ]
        response.finalized_features_epoch = release.finalized_features_epoch
        response.finalized_features = [
            _Finalized(name=name, min_version_level=lo, max_version_level=hi)
            for name, (lo, hi) in release.finalized_features.items()
        ]
        return response
