"""Security APIs: SaslAuthenticate (36), DescribeUserScramCredentials (50), AlterUserScramCredentials (51).

Transcribed from Apache Kafka 4.4.0's message definitions (SaslHandshake, key 17, is in
`odradek.wire.messages.cluster`).  Invariants: SaslAuthenticate is flexible from v2 and carries the
session lifetime from v1; the SCRAM credential APIs exist only as flexible v0; a SCRAM mechanism is
Kafka's ScramMechanism code (1 SCRAM-SHA-256, 2 SCRAM-SHA-512).
"""

from odradek.wire.schema import BYTES, INT8, INT16, INT32, INT64, STRING, ArrayOf, Field, Kind, Message, Struct

__all__ = [
    "AlterUserScramCredentialsRequest",
    "AlterUserScramCredentialsResponse",
    "DescribeUserScramCredentialsRequest",
    "DescribeUserScramCredentialsResponse",
    "SaslAuthenticateRequest",
    "SaslAuthenticateResponse",
]

SaslAuthenticateRequest = Message(
    "SaslAuthenticateRequest",
    api_key=36,
    kind=Kind.REQUEST,
    valid="0-2",
    flexible="2+",
    fields=[Field("auth_bytes", BYTES, "0+")],
)

SaslAuthenticateResponse = Message(
    "SaslAuthenticateResponse",
    api_key=36,
    kind=Kind.RESPONSE,
    valid="0-2",
    flexible="2+",
    fields=[
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("auth_bytes", BYTES, "0+"),
        Field("session_lifetime_ms", INT64, "1+", ignorable=True),
    ],
)

DescribeUserScramCredentialsRequest = Message(
    "DescribeUserScramCredentialsRequest",
    api_key=50,
    kind=Kind.REQUEST,
    valid="0-0",
    flexible="0+",
    fields=[Field("users", ArrayOf(Struct("UserName", [Field("name", STRING, "0+")])), "0+", nullable="0+")],
)

_CREDENTIAL_INFO = Struct("CredentialInfo", [Field("mechanism", INT8, "0+"), Field("iterations", INT32, "0+")])

_DESCRIBE_SCRAM_RESULT = Struct(
    "DescribeUserScramCredentialsResult",
    [
        Field("user", STRING, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("credential_infos", ArrayOf(_CREDENTIAL_INFO), "0+"),
    ],
)

DescribeUserScramCredentialsResponse = Message(
    "DescribeUserScramCredentialsResponse",
    api_key=50,
    kind=Kind.RESPONSE,
    valid="0-0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
        Field("results", ArrayOf(_DESCRIBE_SCRAM_RESULT), "0+"),
    ],
)

_SCRAM_DELETION = Struct("ScramCredentialDeletion", [Field("name", STRING, "0+"), Field("mechanism", INT8, "0+")])

_SCRAM_UPSERTION = Struct(
    "ScramCredentialUpsertion",
    [
        Field("name", STRING, "0+"),
        Field("mechanism", INT8, "0+"),
        Field("iterations", INT32, "0+"),
        Field("salt", BYTES, "0+"),
        Field("salted_password", BYTES, "0+"),
    ],
)

AlterUserScramCredentialsRequest = Message(
    "AlterUserScramCredentialsRequest",
    api_key=51,
    kind=Kind.REQUEST,
    valid="0-0",
    flexible="0+",
    fields=[
        Field("deletions", ArrayOf(_SCRAM_DELETION), "0+"),
        Field("upsertions", ArrayOf(_SCRAM_UPSERTION), "0+"),
    ],
)

_ALTER_SCRAM_RESULT = Struct(
    "AlterUserScramCredentialsResult",
    [
        Field("user", STRING, "0+"),
        Field("error_code", INT16, "0+"),
        Field("error_message", STRING, "0+", nullable="0+", default=None),
    ],
)

AlterUserScramCredentialsResponse = Message(
    "AlterUserScramCredentialsResponse",
    api_key=51,
    kind=Kind.RESPONSE,
    valid="0-0",
    flexible="0+",
    fields=[
        Field("throttle_time_ms", INT32, "0+"),
        Field("results", ArrayOf(_ALTER_SCRAM_RESULT), "0+"),
    ],
)

# The value classes, under the names their generated stub gives them (`odradek.wire.stubgen`).
AlterUserScramCredentialsRequestValue = AlterUserScramCredentialsRequest.cls
AlterUserScramCredentialsResponseValue = AlterUserScramCredentialsResponse.cls
DescribeUserScramCredentialsRequestValue = DescribeUserScramCredentialsRequest.cls
DescribeUserScramCredentialsResponseValue = DescribeUserScramCredentialsResponse.cls
SaslAuthenticateRequestValue = SaslAuthenticateRequest.cls
SaslAuthenticateResponseValue = SaslAuthenticateResponse.cls
