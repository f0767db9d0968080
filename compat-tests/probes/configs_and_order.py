"""Probe sequences: what DescribeConfigs reports of a secured broker's own security settings, and
in which order Metadata answers topics when a request names some twice or more than a few, or
asks for every topic (also as a user who may describe only some of them)."""

from __future__ import annotations

from collections.abc import Callable

from odradek.wire.api import ApiKey
from probes.groups import coordinator_ready, topic_with
from probes.secured import ALLOW, ANY, DESCRIBE, PREFIXED, TOPIC, _acl, _authenticated, _filter, _until_acls
from probes.session import Session, own_broker

__all__ = ["SECURED_CONFIG_SEQUENCES", "SEQUENCES"]

BROKER = 4


def broker_security_configs(s: Session, names: dict[str, str]) -> None:
    """Every key of the broker resource, with and without synonyms, and a few security keys by name."""
    for synonyms in (False, True):
        s.call(
            f"describe broker configs, synonyms {synonyms}",
            ApiKey.DESCRIBE_CONFIGS,
            4,
            resources=[{"resource_type": BROKER, "resource_name": "1", "configuration_keys": None}],
            include_synonyms=synonyms,
            include_documentation=False,
        )
    keys = [
        "listener.name.sasl_ssl.plain.sasl.jaas.config",
        "sasl.enabled.mechanisms",
        "ssl.keystore.location",
        "ssl.keystore.type",
        "ssl.truststore.location",
        "listener.name.mtls.ssl.client.auth",
        "ssl.client.auth",
        "super.users",
        "authorizer.class.name",
        "allow.everyone.if.no.acl.found",
    ]
    s.call(
        "describe security keys by name",
        ApiKey.DESCRIBE_CONFIGS,
        4,
        resources=[{"resource_type": BROKER, "resource_name": "1", "configuration_keys": keys}],
        include_synonyms=True,
        include_documentation=False,
    )


def metadata_topic_order(s: Session, names: dict[str, str]) -> None:
    """Metadata naming topics twice, more than four, and unknown ones, in several versions."""
    run = names["topic"]
    made = [f"{run}-{label}" for label in ("c", "a", "e", "b", "d", "f")]
    for topic in made:
        topic_with(s, topic, 1)
    for version in (4, 9, 12):
        # A missing name of its own per request: a creation one request asked for would be done
        # by Kafka's controller a moment later, and the next request would find the topic or not.
        asked = [made[0], made[1], made[0], made[2], f"{run}-missing{version}", made[3], made[4], made[1], made[5]]
        s.call(
            f"metadata v{version}: nine names, duplicates, one unknown",
            ApiKey.METADATA,
            version,
            topics=[{"name": t} for t in asked],
            allow_auto_topic_creation=False,
        )
    s.call(
        "metadata v12: an unknown name before two known ones",
        ApiKey.METADATA,
        12,
        topics=[{"name": f"{run}-nothing"}, {"name": made[0]}, {"name": made[1]}],
        allow_auto_topic_creation=False,
    )
    s.call(
        "metadata v12: six names, three unknown",
        ApiKey.METADATA,
        12,
        topics=[{"name": t} for t in (f"{run}-x1", made[2], f"{run}-x2", made[3], f"{run}-x3", made[4])],
        allow_auto_topic_creation=False,
    )
    # The missing names follow the existing ones in the order of the Java hash set Kafka copies
    # the names into, sized from how many there are (twelve is where Java 17 and 21 size it apart).
    unknown_mixes = {
        "four names, three unknown": ["y1", made[0], "y2", "y3"],
        "seven names, four unknown, one twice": ["z1", made[5], "z2", made[1], "z3", "z1", made[3], "z4"],
        "eight names, five unknown": ["w1", "w2", made[4], "w3", made[0], "w4", made[2], "w5"],
        "twelve names, six unknown": ["v1", made[0], "v2", made[1], "v3", made[2], "v4", made[3], "v5", made[4],
                                      "v6", made[5]],
    }  # fmt: skip
    for label, mix in unknown_mixes.items():
        s.call(
            f"metadata v12: {label}",
            ApiKey.METADATA,
            12,
            topics=[{"name": t if t in made else f"{run}-{t}"} for t in mix],
            allow_auto_topic_creation=False,
        )
    # Creating: Kafka's topic creation answers the names it cannot create first (an illegal one),
    # then the others in the order of the hash map it gathers them in.
    created = ["u1", made[0], "u2", "bad name!", "u3", made[1], "u4", "u5"]
    s.call(
        "metadata v12: eight names, five to create, one illegal",
        ApiKey.METADATA,
        12,
        topics=[{"name": t if t in made or " " in t else f"{run}-{t}"} for t in created],
        allow_auto_topic_creation=True,
    )
    for count in (2, 3, 4, 5, 6):
        s.call(
            f"metadata v12: {count} topics",
            ApiKey.METADATA,
            12,
            topics=[{"name": t} for t in made[:count]],
            allow_auto_topic_creation=False,
        )
    s.call(
        "metadata v12: one topic twice",
        ApiKey.METADATA,
        12,
        topics=[{"name": made[0]}, {"name": made[0]}],
        allow_auto_topic_creation=False,
    )
    # "AaAa", "BBBB", "AaBB" and "BBAa" share Java's String.hashCode (so do these names with the
    # same prefix): the set files them in one collision node, in the order they were added.
    colliding = [f"{run}-{suffix}" for suffix in ("BBAa", "AaAa", "BBBB", "AaBB")]
    for topic in colliding:
        topic_with(s, topic, 1)
    asked = [made[0], colliding[0], made[1], colliding[1], colliding[2], made[2], colliding[3]]
    s.call(
        "metadata v12: four names with one hash and three others",
        ApiKey.METADATA,
        12,
        topics=[{"name": t} for t in asked],
        allow_auto_topic_creation=False,
    )


@own_broker
def metadata_every_topic_order(s: Session, names: dict[str, str]) -> None:
    """Metadata of every topic as the catalog grows past the sizes where a hash table doubles
    (12 and 24 names), with two names of one hash, then with the internal offsets topic: Kafka lists
    every topic in a hash order of the names it holds, not in creation order.  On a broker of its
    own, so that the topics of other sequences do not change the table the order comes from."""
    run = names["topic"]
    made: list[str] = []
    for count in (3, 11, 12, 23, 24, 30):
        while len(made) < count:
            made.append(f"{run}-{len(made):02d}")
            topic_with(s, made[-1], 1)
        for version in (1, 12):
            s.call(f"metadata v{version} of every topic: {count} topics", ApiKey.METADATA, version, topics=None)
    # Two names with one String.hashCode (as "AaAa" and "BBBB"): Kafka lists the newer first.
    for suffix in ("AaAa", "BBBB"):
        topic_with(s, f"{run}-{suffix}", 1)
    s.call("metadata v12 of every topic: two names share a hash", ApiKey.METADATA, 12, topics=None)
    coordinator_ready(s, names["group"])  # creates __consumer_offsets
    s.call("metadata v0 of every topic, with the offsets topic", ApiKey.METADATA, 0, topics=[])


def _every_topic_as(s: Session, label: str) -> None:
    """Metadata of every topic in v12 and v1 (``topics`` null) and v0 (an empty list)."""
    for version in (12, 1, 0):
        s.call(f"metadata v{version} of every topic: {label}", ApiKey.METADATA, version,
               topics=[] if version == 0 else None)  # fmt: skip


def _describe_prefix(s: Session, prefix: str, acls: int) -> None:
    """Let alice describe the topics starting with ``prefix``; wait until alice holds ``acls`` ACLs."""
    s.call(f"create acls: alice describes {prefix[-2:]}*", ApiKey.CREATE_ACLS, 3,
           creations=[_acl(TOPIC, prefix, PREFIXED, "User:alice", DESCRIBE, ALLOW)])  # fmt: skip
    _until_acls(s, "User:alice", acls)


#: Suffixes of the secured every-topic probe's names, by prefix: words of several lengths, so that
#: the names' hashes differ in many bits and the orders of tables of 16, 32 and 64 buckets differ
#: (names that differ only in a last digit keep one order in tables of any size).
_WORDS = {
    "a": ("kiwi", "fig", "mango", "Aa", "BB"),
    "b": ("oak", "elm", "birch", "cedar", "pine", "ash", "yew", "maple"),
    "c": ("red", "blue", "green", "amber", "teal", "navy", "gold", "jade", "ruby", "onyx", "opal"),
}


@own_broker
def secured_every_topic_order(s: Session, names: dict[str, str]) -> None:
    """Metadata of every topic asked by alice, who may describe only the topics of one prefix and
    then of two (5, then 13 and 15 of 24 and 27 topics: Kafka's hash tables double at 12 and 24
    names), and by the super user, who sees every topic: which names the order is a hash order of,
    and how many the table holding them is sized for.  Two names of one ``String.hashCode`` ("Aa"
    and "BB" after one prefix) are among alice's.  On a secured broker of its own: the order
    depends on every topic present."""
    run = names["topic"]
    for prefix, words in _WORDS.items():
        for word in words:
            topic_with(s, f"{run}-{prefix}-{word}", 1)
    alice = _authenticated(s, names, "alice")
    try:
        _every_topic_as(alice, "alice, no ACL")
        _describe_prefix(s, f"{run}-a-", 1)
        _every_topic_as(alice, "alice describes 5 of 24")
        _every_topic_as(s, "super user, 24 topics")
        _describe_prefix(s, f"{run}-b-", 2)
        _every_topic_as(alice, "alice describes 13 of 24")
        for topic in ("a-plum", "b-larch", "c-pearl"):
            topic_with(s, f"{run}-{topic}", 1)
        _every_topic_as(alice, "alice describes 15 of 27")
        _every_topic_as(s, "super user, 27 topics")
    finally:
        alice.close()
    s.call("delete the ACLs", ApiKey.DELETE_ACLS, 3, filters=[_filter(ANY, None, ANY, "User:alice")])


SECURED_CONFIG_SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "secured.broker_security_configs": broker_security_configs,
    "secured.every_topic_order": secured_every_topic_order,
}
SEQUENCES: dict[str, Callable[[Session, dict[str, str]], None]] = {
    "metadata.topic_order": metadata_topic_order,
    "metadata.every_topic_order": metadata_every_topic_order,
}
