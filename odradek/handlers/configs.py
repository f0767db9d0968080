"""DescribeConfigs (key 32) v1-v4, AlterConfigs (key 33) v0-v2, IncrementalAlterConfigs (key 44) v0-v1.

DescribeConfigs, per resource:
- TOPIC: an illegal name gives INVALID_TOPIC_EXCEPTION, an unknown one
  UNKNOWN_TOPIC_OR_PARTITION; otherwise every topic config (or the requested keys that exist)
  with its effective value, source and synonyms as `odradek.config.describe` computes them.
- BROKER: ``""`` gives the cluster-wide dynamic defaults; this broker's id gives its configs
  (`odradek.config.describe`); another id or a non-number gives INVALID_REQUEST.
- BROKER_LOGGER: an empty list for this broker (loggers are not exposed).
- anything else (GROUP, CLIENT_METRICS, unknown): INVALID_REQUEST.
``include_documentation`` is accepted; documentation is always null (Kafka would answer its
own ConfigDef prose, which odradek does not copy).  ``config_type`` is set.

AlterConfigs replaces a topic's whole set of overrides; IncrementalAlterConfigs changes keys
with SET, DELETE, APPEND and SUBTRACT (`odradek.config.apply_incremental`, the same for topics
and brokers: the last two on list configs only, INVALID_CONFIG otherwise; the starting list is
the override or the topic default).  Checks per resource, in
Kafka's order: duplicate keys (INVALID_REQUEST), unknown operation (INVALID_REQUEST), config
validation (INVALID_CONFIG, INVALID_TOPIC_EXCEPTION), topic existence
(UNKNOWN_TOPIC_OR_PARTITION).  ``validate_only`` runs every check and changes nothing.  A
change is persisted in the topic catalog and applied to the live logs at once.

BROKER resources (``""``: the cluster-wide defaults; this broker's id: its own layer) change the
dynamic broker configs, checked in Kafka 4.x's order: duplicate keys, null values (both
INVALID_REQUEST), the broker id (INVALID_REQUEST), unknown operations (INVALID_REQUEST),
APPEND/SUBTRACT on a non-list config (INVALID_CONFIG), then `odradek.config.validate_layer`
on the resulting layer.  AlterConfigs replaces the whole layer.  A change is persisted in the
data directory and applied to every topic without its own override at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import cast

from odradek.cluster.topics import TopicError, validate_topic_name
from odradek.config import (
    DescribedConfig,
    DynamicConfigError,
    InvalidConfig,
    OpType,
    Scope,
    apply_incremental,
    describe_broker,
    describe_cluster,
    describe_topic,
    validate,
    validate_layer,
)
from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.security.acl import ResourceType as AclResource
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.configs import (
    AlterConfigsRequest,
    AlterConfigsRequestValue,
    AlterConfigsResponse,
    AlterConfigsResponseValue,
    DescribeConfigsRequest,
    DescribeConfigsRequestValue,
    DescribeConfigsResponse,
    DescribeConfigsResponseValue,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsRequestValue,
    IncrementalAlterConfigsResponse,
    IncrementalAlterConfigsResponseValue,
)


class ResourceType(IntEnum):
    UNKNOWN = 0
    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16
    GROUP = 32


class _Refused(Exception):
    def __init__(self, code: ErrorCode, message: str | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _authorize(ctx: RequestContext, kind: int, name: str, operation: AclOperation) -> None:
    """Kafka's check before a config resource is described or altered: the operation on the topic,
    on the cluster for a broker or broker logger, on the group for a group."""
    if kind == ResourceType.TOPIC:
        if not ctx.authorize(operation, AclResource.TOPIC, name):
            raise _Refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.")
    elif kind in (ResourceType.BROKER, ResourceType.BROKER_LOGGER):
        if not ctx.authorize_cluster(operation):
            raise _Refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.")
    elif kind == ResourceType.GROUP and not ctx.authorize(operation, AclResource.GROUP, name):
        raise _Refused(ErrorCode.GROUP_AUTHORIZATION_FAILED, "Group authorization failed.")


_Result = DescribeConfigsResponse.DescribeConfigsResult
_Entry = _Result.DescribeConfigsResourceResult
_Synonym = _Entry.DescribeConfigsSynonym


def _describe_error(request: DescribeConfigsRequestValue, code: ErrorCode) -> DescribeConfigsResponseValue:
    return DescribeConfigsResponse(
        results=[
            _Result(
                error_code=code,
                error_message=None,
                resource_type=r.resource_type,
                resource_name=r.resource_name,
                configs=[],
            )
            for r in request.resources
        ]
    )


def _entry(
    config: DescribedConfig, include_synonyms: bool
) -> DescribeConfigsResponseValue.DescribeConfigsResult.DescribeConfigsResourceResult:
    synonyms = [_Synonym(name=s.name, value=s.value, source=s.source) for s in config.synonyms]
    return _Entry(
        name=config.name,
        value=config.value,
        read_only=config.read_only,
        config_source=config.source,
        is_sensitive=config.sensitive,
        synonyms=synonyms if include_synonyms else [],
        config_type=config.type,
        documentation=None,
    )


def _broker_id(ctx: RequestContext, name: str, *, allow_empty: bool) -> None:
    """Raise `_Refused` unless ``name`` names this broker (or is empty when allowed)."""
    node_id = ctx.cluster.node_id
    if not name:
        if allow_empty:
            return
        raise _Refused(ErrorCode.INVALID_REQUEST, "Broker id must not be empty")
    try:
        requested = int(name)
    except ValueError:
        raise _Refused(ErrorCode.INVALID_REQUEST, f"Broker id must be an integer, but it is: {name}") from None
    if requested != node_id:
        expected = f"{node_id} or empty string" if allow_empty else str(node_id)
        raise _Refused(ErrorCode.INVALID_REQUEST, f"Unexpected broker id, expected {expected}, but received {name}")


def _describe_one(
    ctx: RequestContext, resource: DescribeConfigsRequestValue.DescribeConfigsResource, include_synonyms: bool
) -> list[DescribeConfigsResponseValue.DescribeConfigsResult.DescribeConfigsResourceResult]:
    kind, name = resource.resource_type, resource.resource_name
    keys = list(resource.configuration_keys) if resource.configuration_keys else None
    broker = ctx.cluster
    if kind == ResourceType.TOPIC:
        try:
            validate_topic_name(name)
        except TopicError as exc:
            raise _Refused(ErrorCode.INVALID_TOPIC_EXCEPTION, str(exc)) from None
        info = ctx.topics.get(name)
        if info is None:
            raise _Refused(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, None)
        return [_entry(c, include_synonyms) for c in describe_topic(broker.config, info.configs, keys)]
    if kind == ResourceType.BROKER:
        _broker_id(ctx, name, allow_empty=True)
        describe = describe_broker if name else describe_cluster
        return [_entry(c, include_synonyms) for c in describe(broker.config, keys)]
    if kind == ResourceType.BROKER_LOGGER:
        _broker_id(ctx, name, allow_empty=False)
        return []
    raise _Refused(ErrorCode.INVALID_REQUEST, f"Unsupported resource type: {_type_name(kind)}")


def _type_name(kind: int) -> str:
    try:
        return ResourceType(kind).name
    except ValueError:
        return ResourceType.UNKNOWN.name


@registry.api(DescribeConfigsRequest, DescribeConfigsResponse, "1-4", _describe_error)
async def describe_configs(ctx: RequestContext, request: DescribeConfigsRequestValue) -> DescribeConfigsResponseValue:
    results = []
    for resource in request.resources:
        # Kafka 4.3.1 answers an empty message, not null, unless it has words for the error.
        try:
            _authorize(ctx, resource.resource_type, resource.resource_name, AclOperation.DESCRIBE_CONFIGS)
            configs = _describe_one(ctx, resource, request.include_synonyms)
            code, message = ErrorCode.NONE, ""
        except _Refused as refused:
            configs, code, message = [], refused.code, refused.message or ""
        results.append(
            _Result(
                error_code=code,
                error_message=message,
                resource_type=resource.resource_type,
                resource_name=resource.resource_name,
                configs=configs,
            )
        )
    return DescribeConfigsResponse(results=results)


def _apply_topic(ctx: RequestContext, name: str, given: Mapping[str, str | None], validate_only: bool) -> None:
    """Validate the topic's new overrides, check it exists, then persist and apply them."""
    try:
        validate_topic_name(name)
    except TopicError as exc:
        raise _Refused(ErrorCode.INVALID_TOPIC_EXCEPTION, str(exc)) from None
    configs = {}
    for key, value in given.items():
        try:
            configs[key] = validate(key, value)
        except InvalidConfig as exc:
            raise _Refused(ErrorCode.INVALID_CONFIG, str(exc)) from None
    if ctx.topics.get(name) is None:
        raise _Refused(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
    if validate_only:
        return
    ctx.topics.set_configs(name, configs)


def _check_alterable(kind: int, keys: list[str]) -> None:
    if len(set(keys)) != len(keys):
        raise _Refused(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys")
    if kind != ResourceType.TOPIC:
        raise _Refused(ErrorCode.INVALID_REQUEST, f"Unexpected resource type {_type_name(kind)}")


_BrokerResource = (
    AlterConfigsRequestValue.AlterConfigsResource | IncrementalAlterConfigsRequestValue.AlterConfigsResource
)
"""A BROKER resource of AlterConfigs or of IncrementalAlterConfigs (whose configs carry an operation)."""
_IncrementalConfig = IncrementalAlterConfigsRequestValue.AlterConfigsResource.AlterableConfig


def _check_broker_resource(
    ctx: RequestContext,
    name: str,
    configs: Sequence[AlterConfigsRequestValue.AlterConfigsResource.AlterableConfig | _IncrementalConfig],
) -> bool:
    """Kafka's first checks of a BROKER alteration; return whether it is per-broker."""
    if len({c.name for c in configs}) != len(configs):
        raise _Refused(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys")
    nulls = [
        c.name
        for c in configs
        if c.value is None and not (isinstance(c, _IncrementalConfig) and c.config_operation == OpType.DELETE)
    ]
    if nulls:
        raise _Refused(ErrorCode.INVALID_REQUEST, f"Null value not supported for : {', '.join(nulls)}")
    if not name:
        return False
    try:
        requested = int(name)
    except ValueError:
        raise _Refused(ErrorCode.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}") from None
    node_id = ctx.cluster.node_id
    if requested != node_id:
        raise _Refused(ErrorCode.INVALID_REQUEST, f"Unexpected broker id, expected {node_id}, but received {name}")
    return True


def _alter_broker(ctx: RequestContext, resource: _BrokerResource, validate_only: bool) -> None:
    """Validate a BROKER resource's change, then persist and apply it unless ``validate_only``."""
    per_broker = _check_broker_resource(ctx, resource.resource_name, resource.configs)
    broker = ctx.cluster
    try:
        if isinstance(resource, IncrementalAlterConfigsRequestValue.AlterConfigsResource):
            for change in resource.configs:
                if change.config_operation not in tuple(OpType):
                    raise _Refused(ErrorCode.INVALID_REQUEST, f"Unknown operations type {change.config_operation}")
            config = broker.config
            current = config.dynamic_broker_configs if per_broker else config.dynamic_default_configs
            changes = [(c.name, c.config_operation, c.value) for c in resource.configs]
            props = {name: value or "" for name, value in apply_incremental(current, changes, Scope.BROKER).items()}
        else:
            props = {c.name: cast(str, c.value) for c in resource.configs}  # nulls were refused above
        validate_layer(broker.config, props, per_broker=per_broker)
    except DynamicConfigError as exc:
        code = ErrorCode.INVALID_CONFIG if exc.invalid_config else ErrorCode.INVALID_REQUEST
        raise _Refused(code, exc.message) from None
    if not validate_only:
        broker.set_dynamic_configs(props, per_broker=per_broker)


_AlterResponse = AlterConfigsResponse.AlterConfigsResourceResponse


def _alter_error(request: AlterConfigsRequestValue, code: ErrorCode) -> AlterConfigsResponseValue:
    return AlterConfigsResponse(
        responses=[
            _AlterResponse(
                error_code=code, error_message=None, resource_type=r.resource_type, resource_name=r.resource_name
            )
            for r in request.resources
        ]
    )


@registry.api(AlterConfigsRequest, AlterConfigsResponse, "0-2", _alter_error)
async def alter_configs(ctx: RequestContext, request: AlterConfigsRequestValue) -> AlterConfigsResponseValue:
    responses = []
    for resource in request.resources:
        code, message = ErrorCode.NONE, None
        try:
            _authorize(ctx, resource.resource_type, resource.resource_name, AclOperation.ALTER_CONFIGS)
            if resource.resource_type == ResourceType.BROKER:
                _alter_broker(ctx, resource, request.validate_only)
            else:
                _check_alterable(resource.resource_type, [c.name for c in resource.configs])
                configs = {c.name: c.value for c in resource.configs}
                _apply_topic(ctx, resource.resource_name, configs, request.validate_only)
        except _Refused as refused:
            code, message = refused.code, refused.message
        responses.append(
            _AlterResponse(
                error_code=code,
                error_message=message,
                resource_type=resource.resource_type,
                resource_name=resource.resource_name,
            )
        )
    return AlterConfigsResponse(responses=responses)


def _incremental_topic(current: Mapping[str, str], changes: list[tuple[str, int, str | None]]) -> dict[str, str | None]:
    try:
        return apply_incremental(current, changes, Scope.TOPIC)
    except DynamicConfigError as exc:
        code = ErrorCode.INVALID_CONFIG if exc.invalid_config else ErrorCode.INVALID_REQUEST
        raise _Refused(code, exc.message) from None


_IncrementalResponse = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse


def _incremental_error(
    request: IncrementalAlterConfigsRequestValue, code: ErrorCode
) -> IncrementalAlterConfigsResponseValue:
    return IncrementalAlterConfigsResponse(
        responses=[
            _IncrementalResponse(
                error_code=code, error_message=None, resource_type=r.resource_type, resource_name=r.resource_name
            )
            for r in request.resources
        ]
    )


@registry.api(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, "0-1", _incremental_error)
async def incremental_alter_configs(
    ctx: RequestContext, request: IncrementalAlterConfigsRequestValue
) -> IncrementalAlterConfigsResponseValue:
    responses = []
    for resource in request.resources:
        code, message = ErrorCode.NONE, None
        try:
            _authorize(ctx, resource.resource_type, resource.resource_name, AclOperation.ALTER_CONFIGS)
            if resource.resource_type == ResourceType.BROKER:
                _alter_broker(ctx, resource, request.validate_only)
            else:
                _check_alterable(resource.resource_type, [c.name for c in resource.configs])
                info = ctx.topics.get(resource.resource_name)
                changes = [(c.name, c.config_operation, c.value) for c in resource.configs]
                configs = _incremental_topic(info.configs if info is not None else {}, changes)
                _apply_topic(ctx, resource.resource_name, configs, request.validate_only)
        except _Refused as refused:
            code, message = refused.code, refused.message
        responses.append(
            _IncrementalResponse(
                error_code=code,
                error_message=message,
                resource_type=resource.resource_type,
                resource_name=resource.resource_name,
            )
        )
    return IncrementalAlterConfigsResponse(responses=responses)
