"""UpdateFeatures (key 57) v0-v2, as a single combined-mode Kafka 4.4 node answers it.

The updates are checked in request order against the levels as the earlier ones left them, and
the first one Kafka's controller refuses fails the whole request (INVALID_UPDATE_VERSION, "The
update failed for all features since the following feature had an error: ...", no per-feature
results); checked with compat-tests/probes, sequence features.update:

- an upgrade type other than upgrade (1), safe downgrade (2) or unsafe downgrade (3) (v0: a
  downgrade is asked with ``allow_downgrade``); a level below 0; a feature this node does not
  support; a level outside its supported range; a lower level asked as an upgrade;
- any metadata.version downgrade (a safe one might delete metadata, an unsafe one is not
  supported in this version).

A feature named twice takes its last level; level 0 turns a feature off.  Otherwise every update
applies (unless ``validate_only``), durably, and the new levels are what ApiVersions reports; v0
and v1 list each update with no error ("NONE"), v2 lists none.  Needs ALTER on the cluster.
"""

from __future__ import annotations

from odradek.cluster.features import METADATA_VERSION, FeatureLevels
from odradek.handlers.context import RequestContext
from odradek.handlers.forwarded import needs_permission
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.features import (
    UpdateFeaturesRequest,
    UpdateFeaturesRequestValue,
    UpdateFeaturesResponse,
    UpdateFeaturesResponseValue,
)

UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE = 1, 2, 3
_PREFIX = "The update failed for all features since the following feature had an error: "


def _error(request: UpdateFeaturesRequestValue, code: ErrorCode) -> UpdateFeaturesResponseValue:
    return UpdateFeaturesResponse(error_code=code, error_message=None)


def _refusal(
    ctx: RequestContext, levels: FeatureLevels, working: dict[str, int], feature: str, level: int, kind: int
) -> str | None:
    """Why Kafka's controller refuses one update, or None."""
    invalid = f"Invalid update version {level} for feature {feature}. "
    if kind not in (UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE):
        return invalid + "The controller does not support the given upgrade type."
    if level < 0:
        return invalid + "A feature version cannot be less than 0."
    supported = levels.supported.get(feature)
    node = ctx.cluster.node_id
    if supported is None:
        return invalid + f"Local controller {node} does not support this feature."
    out_of_range = level not in supported if level != 0 else supported.min_version > 0
    if out_of_range:
        return (
            invalid + f"Local controller {node} only supports versions {supported.min_version}-{supported.max_version}"
        )
    current = working.get(feature, 0)
    if level < current and kind == UPGRADE:
        return invalid + (
            "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe "
            "downgrade."
        )
    if feature == METADATA_VERSION and level < current:
        reason = (
            "Refusing to perform the requested downgrade because it might delete metadata information."
            if kind == SAFE_DOWNGRADE
            else "Unsafe metadata downgrade is not supported in this version."
        )
        return f"Unsupported metadata.version downgrade from {current} to {level}. {reason}"
    return None


@registry.api(UpdateFeaturesRequest, UpdateFeaturesResponse, "0-2", _error)
async def update_features(ctx: RequestContext, request: UpdateFeaturesRequestValue) -> UpdateFeaturesResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return UpdateFeaturesResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=needs_permission(ctx, "ALTER")
        )
    levels = ctx.cluster.features
    working = dict(levels.finalized)
    for update in request.feature_updates:
        v0_kind = SAFE_DOWNGRADE if update.allow_downgrade else UPGRADE
        kind = v0_kind if ctx.version == 0 else update.upgrade_type
        refusal = _refusal(ctx, levels, working, update.feature, update.max_version_level, kind)
        if refusal is not None:
            return UpdateFeaturesResponse(error_code=ErrorCode.INVALID_UPDATE_VERSION, error_message=_PREFIX + refusal)
        working[update.feature] = update.max_version_level
    changes = {name: level for name, level in working.items() if level != levels.level(name)}
    if changes and not request.validate_only:
        ctx.cluster.set_features(levels.with_levels(changes))
    results = [
        UpdateFeaturesResponse.UpdatableFeatureResult(
            feature=u.feature, error_code=ErrorCode.NONE, error_message="NONE"
        )
        for u in request.feature_updates
    ]
    return UpdateFeaturesResponse(
        error_code=ErrorCode.NONE, error_message=None, results=results if ctx.version < 2 else []
    )
