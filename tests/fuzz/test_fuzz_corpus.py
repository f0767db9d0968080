"""Every seed, captured client input and past crash of each fuzz family, replayed through its target.

Generated seeds and captured client bytes are canonical, so they must also re-encode byte for
byte; a regression input (one that once broke a decoder) must now be refused cleanly or round-trip.
This runs without atheris: the coverage-guided runs are `test_fuzz_short` and `make fuzz`.
"""

from __future__ import annotations

import pytest

from tests.fuzz.seeds import CORPUS_DIR, REGRESSIONS_DIR, generated_seeds, stored_inputs
from tests.fuzz.targets import FAMILIES, replay_seed


@pytest.mark.parametrize("family", FAMILIES)
def test_generated_seeds_round_trip_byte_for_byte(family: str) -> None:
    seeds = generated_seeds(family)
    assert seeds
    for data in seeds:
        replay_seed(FAMILIES[family], data)


@pytest.mark.parametrize("family", FAMILIES)
def test_captured_client_inputs_round_trip_byte_for_byte(family: str) -> None:
    for _, data in stored_inputs(CORPUS_DIR, family):
        replay_seed(FAMILIES[family], data)


@pytest.mark.parametrize("family", FAMILIES)
def test_past_crashes_are_handled(family: str) -> None:
    for _, data in stored_inputs(REGRESSIONS_DIR, family):
        FAMILIES[family].target(data)


def test_the_message_families_cover_every_registered_version() -> None:
    """A message added to the registry is fuzzed without a line written for it."""
    from odradek.wire.messages import ALL_MESSAGES
    from tests.fuzz.targets import decoded_schema, message_versions

    for family, kind in (("request", 0), ("response", 1)):
        reached = {decoded_schema(family, data) for data in generated_seeds(family)}
        expected = {
            (key, version)
            for key, pair in ALL_MESSAGES.items()
            for version in range(pair[kind].valid.low, (pair[kind].valid.high or 0) + 1)
        }
        assert reached == expected
        assert len(expected) == message_versions()


def test_the_sasl_seeds_authenticate_with_every_mechanism() -> None:
    """Every mode that can authenticate has a seed that does, so the fuzzer starts past the parsing,
    inside the checks of the secret (the SCRAM proof, the JWT signature and claims)."""
    from tests.fuzz.sasl import MODES, sasl_outcome

    inputs = [*generated_seeds("sasl"), *(data for _, data in stored_inputs(CORPUS_DIR, "sasl"))]
    authenticated = {MODES[data[0] % len(MODES)][0] for data in inputs if sasl_outcome(data) == "authenticated"}
    assert authenticated == {name for name, _ in MODES if not name.endswith("-first")}


def test_the_sasl_target_catches_a_mechanism_that_accepts_a_wrong_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    import hmac

    from tests.fuzz.sasl import MODES, AuthenticatedWithoutSecret, fuzz_sasl

    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: True)  # PLAIN's password check
    plain_mode = next(index for index, (name, _) in enumerate(MODES) if name == "plain")
    with pytest.raises(AuthenticatedWithoutSecret):
        fuzz_sasl(bytes([plain_mode]) + b"\0alice\0not-the-password")
