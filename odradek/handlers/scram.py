"""DescribeUserScramCredentials (key 50) v0 and AlterUserScramCredentials (key 51) v0.

As Kafka 4's controller and metadata cache answer them (checked with compat-tests/probes/security.py):

- Describe: a null or empty user list describes every user with a credential; a named user without
  one gets RESOURCE_NOT_FOUND, a user named twice one DUPLICATE_RESOURCE result.  Needs DESCRIBE on
  the cluster (else CLUSTER_AUTHORIZATION_FAILED for the whole answer).
- Alter: a user may appear once per request (else DUPLICATE_RESOURCE for it); deletions are checked
  first (empty name UNACCEPTABLE_CREDENTIAL, unknown mechanism UNSUPPORTED_SASL_MECHANISM, a credential
  that does not exist RESOURCE_NOT_FOUND), then upsertions (iterations 4096..16384, an empty salted
  password UNKNOWN_SERVER_ERROR as Kafka's key derivation fails on it); the results come in the order
  of Kafka's map of users (`hashmap_order`).  Needs ALTER on the cluster.  Every accepted change is
  applied at once, durably, then answered.
"""

from __future__ import annotations

from odradek.handlers.context import RequestContext
from odradek.handlers.registry import registry
from odradek.security.acl import AclOperation
from odradek.security.java_order import hashmap_order, string_hash
from odradek.security.sasl.scram import (
    MAX_ITERATIONS,
    MECHANISMS,
    MIN_ITERATIONS,
    ScramCredential,
    credential_from_salted_password,
)
from odradek.wire.errors import ErrorCode
from odradek.wire.messages.security import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsRequestValue,
    AlterUserScramCredentialsResponse,
    AlterUserScramCredentialsResponseValue,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsRequestValue,
    DescribeUserScramCredentialsResponse,
    DescribeUserScramCredentialsResponseValue,
)

_CODES = {name: code for code, name in MECHANISMS.items()}
_DescribeResult = DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult
_AlterResult = AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult
_DUPLICATE = "A user credential cannot be altered twice in the same request"


def _describe_error(
    request: DescribeUserScramCredentialsRequestValue, code: ErrorCode
) -> DescribeUserScramCredentialsResponseValue:
    return DescribeUserScramCredentialsResponse(error_code=code)


@registry.api(DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, "0", _describe_error)
async def describe_user_scram_credentials(
    ctx: RequestContext, request: DescribeUserScramCredentialsRequestValue
) -> DescribeUserScramCredentialsResponseValue:
    if not ctx.authorize_cluster(AclOperation.DESCRIBE):
        return DescribeUserScramCredentialsResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED, error_message=None
        )
    users = ctx.security.scram.users()
    results = []
    if not request.users:
        for user in hashmap_order(users, string_hash):
            results.append(_described(user, users[user]))
    else:
        names = [u.name for u in request.users]
        for name in dict.fromkeys(names):
            if names.count(name) > 1:
                message = f"Cannot describe SCRAM credentials for the same user twice in a single request: {name}"
                results.append(
                    _DescribeResult(user=name, error_code=ErrorCode.DUPLICATE_RESOURCE, error_message=message)
                )
            elif name not in users:
                message = f"Attempt to describe a user credential that does not exist: {name}"
                results.append(
                    _DescribeResult(user=name, error_code=ErrorCode.RESOURCE_NOT_FOUND, error_message=message)
                )
            else:
                results.append(_described(name, users[name]))
    return DescribeUserScramCredentialsResponse(error_code=ErrorCode.NONE, error_message="", results=results)


def _described(
    user: str, credentials: dict[str, ScramCredential]
) -> DescribeUserScramCredentialsResponseValue.DescribeUserScramCredentialsResult:
    infos = [
        _DescribeResult.CredentialInfo(mechanism=code, iterations=credentials[name].iterations)
        for code, name in sorted(MECHANISMS.items())
        if name in credentials
    ]
    return _DescribeResult(user=user, error_code=ErrorCode.NONE, error_message="", credential_infos=infos)


def _alter_error(
    request: AlterUserScramCredentialsRequestValue, code: ErrorCode
) -> AlterUserScramCredentialsResponseValue:
    users = [d.name for d in request.deletions] + [u.name for u in request.upsertions]
    return AlterUserScramCredentialsResponse(
        results=[_AlterResult(user=u, error_code=code) for u in dict.fromkeys(users)]
    )


@registry.api(AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, "0", _alter_error)
async def alter_user_scram_credentials(
    ctx: RequestContext, request: AlterUserScramCredentialsRequestValue
) -> AlterUserScramCredentialsResponseValue:
    if not ctx.authorize_cluster(AclOperation.ALTER):
        return _alter_error(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    store = ctx.security.scram
    errors: dict[str, tuple[ErrorCode, str | None]] = {}
    deletions: dict[str, str] = {}
    for deletion in request.deletions:
        name = deletion.name
        if name in errors:
            continue
        if name in deletions:
            del deletions[name]
            errors[name] = (ErrorCode.DUPLICATE_RESOURCE, _DUPLICATE)
            continue
        mechanism = MECHANISMS.get(deletion.mechanism)
        if not name:
            errors[name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
        elif mechanism is None:
            errors[name] = (ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
        elif store.lookup(name, mechanism) is None:
            errors[name] = (ErrorCode.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist")
        else:
            deletions[name] = mechanism
    upsertions: dict[str, tuple[str, ScramCredential]] = {}
    for upsertion in request.upsertions:
        name = upsertion.name
        if name in errors:
            continue
        if name in deletions or name in upsertions:
            deletions.pop(name, None)
            upsertions.pop(name, None)
            errors[name] = (ErrorCode.DUPLICATE_RESOURCE, _DUPLICATE)
            continue
        mechanism = MECHANISMS.get(upsertion.mechanism)
        if not name:
            errors[name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
        elif mechanism is None:
            errors[name] = (ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
        elif upsertion.iterations < MIN_ITERATIONS:
            errors[name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
        elif upsertion.iterations > MAX_ITERATIONS:
            errors[name] = (ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
        elif not upsertion.salted_password:
            errors[name] = (ErrorCode.UNKNOWN_SERVER_ERROR, None)
        else:
            credential = credential_from_salted_password(
                mechanism, bytes(upsertion.salt), bytes(upsertion.salted_password), upsertion.iterations
            )
            upsertions[name] = (mechanism, credential)
    store.apply(list(deletions.items()), [(name, mech, cred) for name, (mech, cred) in upsertions.items()])
    for name in [*deletions, *upsertions]:
        errors[name] = (ErrorCode.NONE, None)
    return AlterUserScramCredentialsResponse(
        results=[
            _AlterResult(user=name, error_code=errors[name][0], error_message=errors[name][1])
            for name in hashmap_order(errors, string_hash)
        ]
    )
