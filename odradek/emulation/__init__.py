"""Data for emulating a chosen Apache Kafka release: what its ApiVersions advertised.

The tables under ``releases/`` were captured from the real releases by
``compat-tests/emulation/capture.py`` and are read only through ``releases.load_release``.
"""

from odradek.emulation.releases import (
    Mode,
    Outcome,
    Refusals,
    ReleaseApis,
    available_releases,
    load_release,
    parse_release,
)

__all__ = ["Mode", "Outcome", "Refusals", "ReleaseApis", "available_releases", "load_release", "parse_release"]
