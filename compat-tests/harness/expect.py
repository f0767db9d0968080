"""Partial matching of an expectation against a (normalised) observation.

Grammar of an expectation:
    {"$eq": v}            the actual value equals v exactly (no partial matching inside)
    {"$gt": n}            the actual value is an integer greater than n
    {"$each": e, "$len": n}  actual is a list; every element matches e; optional exact length
    "$any"                anything, as long as the key is present
    "$int"                an integer
    "$error"              a non-empty string (an error name whose spelling differs per client)
    {k: e, ...}           actual is an object having at least these keys, each matching
    [e0, e1, ...]         actual is a list of the same length, matched element by element
    anything else         equality
Returns a list of human-readable problems; empty means the expectation holds.
"""

from __future__ import annotations

from typing import Any


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


def match(expected: Any, actual: Any, path: str = "$") -> list[str]:
    if expected == "$any":
        return []
    if expected == "$int":
        if isinstance(actual, int) and not isinstance(actual, bool):
            return []
        return [f"{path}: expected an int, got {_short(actual)}"]
    if expected == "$error":
        if isinstance(actual, str) and actual:
            return []
        return [f"{path}: expected an error name, got {_short(actual)}"]
    if isinstance(expected, dict) and "$eq" in expected:
        if actual == expected["$eq"]:
            return []
        return [f"{path}: expected exactly {_short(expected['$eq'])}, got {_short(actual)}"]
    if isinstance(expected, dict) and "$gt" in expected:
        if isinstance(actual, int) and not isinstance(actual, bool) and actual > expected["$gt"]:
            return []
        return [f"{path}: expected an int greater than {expected['$gt']}, got {_short(actual)}"]
    if isinstance(expected, dict) and ("$each" in expected or "$len" in expected):
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {_short(actual)}"]
        problems: list[str] = []
        if "$len" in expected and len(actual) != expected["$len"]:
            problems.append(f"{path}: expected {expected['$len']} items, got {len(actual)}")
        if "$each" in expected:
            for i, item in enumerate(actual):
                problems.extend(match(expected["$each"], item, f"{path}[{i}]"))
        return problems
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {_short(actual)}"]
        problems = []
        for key, sub in expected.items():
            if key not in actual:
                problems.append(f"{path}.{key}: missing (expected {_short(sub)})")
            else:
                problems.extend(match(sub, actual[key], f"{path}.{key}"))
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {_short(actual)}"]
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} items, got {len(actual)}: {_short(actual)}"]
        problems = []
        for i, (sub, item) in enumerate(zip(expected, actual, strict=True)):
            problems.extend(match(sub, item, f"{path}[{i}]"))
        return problems
    return [] if expected == actual else [f"{path}: expected {_short(expected)}, got {_short(actual)}"]
