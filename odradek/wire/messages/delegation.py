"""Delegation tokens: CreateDelegationToken (38), RenewDelegationToken (39),
ExpireDelegationToken (40) and DescribeDelegationToken (41).

Transcribed from Apache Kafka 4.4.0's message definitions (v0 is gone since Kafka 4.0).
Invariants: flexible from v2; v3 adds the owner to a creation and the requester to the answers;
a null owner list in DescribeDelegationToken asks for every token.
"""

from odradek.wire.schema import BYTES, INT16, INT32, INT64, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "CreateDelegationTokenRequest",
    "CreateDelegationTokenResponse",
    "DescribeDelegationTokenRequest",
    "DescribeDelegationTokenResponse",
    "ExpireDelegationTokenRequest",
    "ExpireDelegationTokenResponse",
    "RenewDelegationTokenRequest",
    "RenewDelegationTokenResponse",
]

_CREATABLE_RENEWERS = Struct(
    "CreatableRenewers",
    [
        Field("principal_type", STRING, "0+"),
        Field("principal_name", STRING, "0+"),
    ],
)


CreateDelegationTokenRequest = Message(
    "CreateDelegationTokenRequest",
    api_key=38,
    kind=Kind.REQUEST,
    valid="1-3",
    flexible="2+",
    fields=[
        Field("owner_principal_type", STRING, "3+", nullable="3+"),
        Field("owner_principal_name", STRING, "3+", nullable="3+"),
        Field("renewers", ArrayOf(_CREATABLE_RENEWERS), "0+"),
        Field("max_lifetime_ms", INT64, "0+"),
    ],
)


CreateDelegationTokenResponse = Message(
    "CreateDelegationTokenResponse",
    api_key=38,
    kind=Kind.RESPONSE,
    valid="1-3",
    flexible="2+",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("principal_type", STRING, "0+"),
        Field("principal_name", STRING, "0+"),
        Field("token_requester_principal_type", STRING, "3+"),
        Field("token_requester_principal_name", STRING, "3+"),
        Field("issue_timestamp_ms", INT64, "0+"),
        Field("expiry_timestamp_ms", INT64, "0+"),
        Field("max_timestamp_ms", INT64, "0+"),
        Field("token_id", STRING, "0+"),
        Field("hmac", BYTES, "0+"),
        Field("throttle_time_ms", INT32, "0+"),
    ],
)


RenewDelegationTokenRequest = Message(
    "RenewDelegationTokenRequest",
    api_key=39,
    kind=Kind.REQUEST,
    valid="1-2",
    flexible="2+",
    fields=[
        Field("hmac", BYTES, "0+"),
        Field("renew_period_ms", INT64, "0+"),
    ],
)


RenewDelegationTokenResponse = Message(
    "RenewDelegationTokenResponse",
    api_key=39,
    kind=Kind.RESPONSE,
    valid="1-2",
    flexible="2+",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("expiry_timestamp_ms", INT64, "0+"),
        Field("throttle_time_ms", INT32, "0+"),
    ],
)


ExpireDelegationTokenRequest = Message(
    "ExpireDelegationTokenRequest",
    api_key=40,
    kind=Kind.REQUEST,
    valid="1-2",
    flexible="2+",
    fields=[
        Field("hmac", BYTES, "0+"),
        Field("expiry_time_period_ms", INT64, "0+"),
    ],
)


ExpireDelegationTokenResponse = Message(
    "ExpireDelegationTokenResponse",
    api_key=40,
    kind=Kind.RESPONSE,
    valid="1-2",
    flexible="2+",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("expiry_timestamp_ms", INT64, "0+"),
        Field("throttle_time_ms", INT32, "0+"),
    ],
)


_DESCRIBE_DELEGATION_TOKEN_OWNER = Struct(
    "DescribeDelegationTokenOwner",
    [
        Field("principal_type", STRING, "0+"),
        Field("principal_name", STRING, "0+"),
    ],
)


DescribeDelegationTokenRequest = Message(
    "DescribeDelegationTokenRequest",
    api_key=41,
    kind=Kind.REQUEST,
    valid="1-3",
    flexible="2+",
    fields=[
        Field("owners", ArrayOf(_DESCRIBE_DELEGATION_TOKEN_OWNER), "0+", nullable="0+"),
    ],
)


_DESCRIBED_DELEGATION_TOKEN_RENEWER = Struct(
    "DescribedDelegationTokenRenewer",
    [
        Field("principal_type", STRING, "0+"),
        Field("principal_name", STRING, "0+"),
    ],
)


_DESCRIBED_DELEGATION_TOKEN = Struct(
    "DescribedDelegationToken",
    [
        Field("principal_type", STRING, "0+"),
        Field("principal_name", STRING, "0+"),
        Field("token_requester_principal_type", STRING, "3+"),
        Field("token_requester_principal_name", STRING, "3+"),
        Field("issue_timestamp", INT64, "0+"),
        Field("expiry_timestamp", INT64, "0+"),
        Field("max_timestamp", INT64, "0+"),
        Field("token_id", STRING, "0+"),
        Field("hmac", BYTES, "0+"),
        Field("renewers", ArrayOf(_DESCRIBED_DELEGATION_TOKEN_RENEWER), "0+"),
    ],
)


DescribeDelegationTokenResponse = Message(
    "DescribeDelegationTokenResponse",
    api_key=41,
    kind=Kind.RESPONSE,
    valid="1-3",
    flexible="2+",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("tokens", ArrayOf(_DESCRIBED_DELEGATION_TOKEN), "0+"),
        Field("throttle_time_ms", INT32, "0+"),
    ],
)


# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
CreateDelegationTokenRequestValue = CreateDelegationTokenRequest.cls
CreateDelegationTokenResponseValue = CreateDelegationTokenResponse.cls
DescribeDelegationTokenRequestValue = DescribeDelegationTokenRequest.cls
DescribeDelegationTokenResponseValue = DescribeDelegationTokenResponse.cls
ExpireDelegationTokenRequestValue = ExpireDelegationTokenRequest.cls
ExpireDelegationTokenResponseValue = ExpireDelegationTokenResponse.cls
RenewDelegationTokenRequestValue = RenewDelegationTokenRequest.cls
RenewDelegationTokenResponseValue = RenewDelegationTokenResponse.cls
