"""``subscribePattern``: a Python regular expression that selects the same topics as the Java pattern
Spark's Kafka connector would, or is refused.

Spark's connector compiles the option with ``java.util.regex.Pattern`` and subscribes to every topic
whose whole name matches. The ``odradek`` source compiles it with Python's :mod:`re` (a PySpark Python
data source plans its reads in a Python worker, with no JVM at hand) and matches whole names too.
The two dialects agree on the constructs a topic pattern needs (literals, ``.``, classes such as
``[a-z0-9._-]``, ``\\d``/``\\w``, anchors, groups, alternation, greedy/lazy/possessive quantifiers,
lookaround, atomic groups, the ``i``/``m``/``s`` flags), provided Python matches ASCII-only as Java
does by default (``re.ASCII``: ``\\w`` and case-insensitive matching stay ASCII).

Where they differ, the pattern is refused with a message naming the construct and its position
(nothing is translated), so that a pattern accepted here selects, among valid topic names, the
topics Java's would (``tests/spark`` compares the two on Java's own ``Pattern``):

* Java-only syntax that Python also rejects: ``\\p{...}``, ``\\Q...\\E``, ``(?<name>...)``, ``\\k<name>``,
  ``\\h``, ``\\R``, ``\\x{...}``, ``\\e``, ``\\cX``, flags set mid-pattern (``a(?i)b``), ...;
* valid in both but read differently, refused here: ``[`` inside a class and ``&&`` inside a class
  (Java's union and intersection, ``[a-c[x]]``, ``[a-z&&[^b]]``; Python reads ``[`` as a character),
  ``--``, ``||`` and ``~~`` inside a class, a backslash before a digit (Java reads ``\\141`` as a
  back-reference, Python as the octal escape for ``a``; ``\\0141`` is ``a`` in Java only), the verbose
  flag ``x`` (Java also ignores white space and ``#`` comments inside classes);
* Python-only syntax that Java rejects, refused here so that a pattern never works on one reader
  and fails on the other: ``(?P<name>...)``, ``(?P=name)``, ``(?#...)``, ``(?(1)...)``, the ``a``
  flag, ``\\U........``, and a ``{`` that is not a Java repetition ``{n}``, ``{n,}``, ``{n,m}``
  (``a{,3}``, a literal ``{``: write ``\\{``).
"""

from __future__ import annotations

import re
import warnings

__all__ = ["TopicPatternError", "compile_topic_pattern"]

#: A repetition Java accepts, from its opening brace.
_JAVA_REPETITION = re.compile(r"\{\d+(,\d*)?\}")
#: Inline flag letters after ``(?`` up to ``:`` or ``)``.
_INLINE_FLAGS = re.compile(r"\(\?([a-zA-Z]*(?:-[a-zA-Z]*)?)[:)]")


class TopicPatternError(ValueError):
    """The pattern is not a regular expression, or Java's and Python's readings of it could differ."""


def compile_topic_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled for :meth:`re.Pattern.fullmatch` against topic names; raises
    :class:`TopicPatternError` naming the construct when Java would read it otherwise (module docstring)."""
    with warnings.catch_warnings():
        # Python warns (FutureWarning) where a class holds what a future Python may read as a set
        # operation: exactly the places where Java already does.
        warnings.simplefilter("error", FutureWarning)
        try:
            compiled = re.compile(pattern, re.ASCII)
        except FutureWarning as exc:
            raise TopicPatternError(f"{exc}: Java reads this as a set operation on classes") from exc
        except (re.error, ValueError) as exc:
            raise TopicPatternError(f"not a Python regular expression: {exc}") from exc
    difference = _java_difference(pattern)
    if difference is not None:
        raise TopicPatternError(difference)
    return compiled


def _java_difference(pattern: str) -> str | None:
    """The first construct of ``pattern`` (already valid in Python) that Java reads otherwise or rejects."""
    index = 0
    class_opened_at: int | None = None
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            escaped = pattern[index + 1 : index + 2]
            if escaped.isdigit():
                return (
                    f"a backslash before a digit at position {index} (a back-reference or octal escape: "
                    "Java and Python number them differently)"
                )
            if escaped == "U":
                return f"\\U at position {index} is Python-only (Java writes \\x{{...}})"
            index += 2
            continue
        if class_opened_at is not None:
            first = class_opened_at + (2 if pattern.startswith("[^", class_opened_at) else 1)
            if char == "]" and index > first:
                class_opened_at = None
            elif char == "[":
                return f"'[' inside a character class at position {index}: Java nests classes there (a union)"
            elif pattern.startswith("&&", index):
                return f"'&&' inside a character class at position {index}: Java intersects classes there"
        elif char == "[":
            class_opened_at = index
        elif char == "{" and not _JAVA_REPETITION.match(pattern, index):
            return (
                f"'{{' at position {index} is not a repetition {{n}}, {{n,}} or {{n,m}}: Java rejects it (write \\{{)"
            )
        elif pattern.startswith("(?", index):
            problem = _group_difference(pattern, index)
            if problem is not None:
                return problem
        index += 1
    return None


def _group_difference(pattern: str, index: int) -> str | None:
    """What Java would reject or read otherwise in the group opening ``(?`` at ``index``."""
    opener = pattern[index + 2 : index + 3]
    if opener in ("P", "#", "("):
        kind = {"P": "named groups (?P...)", "#": "comments (?#...)", "(": "conditionals (?(...)...)"}[opener]
        return f"{kind} at position {index} are Python-only: Java rejects them"
    flags = _INLINE_FLAGS.match(pattern, index)
    if flags is not None:
        if "x" in flags.group(1):
            return (
                f"the verbose flag x at position {index}: Java also ignores white space and # comments "
                "inside character classes, Python does not"
            )
        if "a" in flags.group(1):
            return f"the ASCII flag a at position {index} is Python-only (matching is ASCII already, as in Java)"
    return None
