"""How the message browser shows a key, a value or a header: as text, as JSON or as hex.

- ``text``: UTF-8, with bytes that are not UTF-8 and control characters other than newline and tab
  shown as ``\\xNN`` escapes;
- ``json``: pretty-printed when the bytes parse as JSON, else the text with a note saying so;
- ``hex``: 16 bytes a line, offset, hex and printable ASCII, like ``hexdump -C``.

None (a null key or value) is shown as ``null`` in every format.  Results are plain strings; the
templates escape them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__ = ["FORMATS", "Shown", "show"]

FORMATS = ("text", "json", "hex")


@dataclass(frozen=True, slots=True)
class Shown:
    text: str
    null: bool = False
    note: str | None = None


_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F] if chr(c) not in "\n\t"}


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="backslashreplace").translate(_CONTROLS)


def _hex(data: bytes) -> str:
    lines = []
    for at in range(0, len(data), 16):
        chunk = data[at : at + 16]
        hexed = " ".join(f"{b:02x}" for b in chunk)
        printable = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f"{at:08x}  {hexed:<47}  |{printable}|")
    return "\n".join(lines)


def show(data: bytes | None, fmt: str) -> Shown:
    """``data`` in format ``fmt`` (one of `FORMATS`)."""
    if data is None:
        return Shown("null", null=True)
    if fmt == "hex":
        return Shown(_hex(data))
    if fmt == "json":
        try:
            return Shown(json.dumps(json.loads(data), indent=2, ensure_ascii=False))
        except (ValueError, UnicodeDecodeError):
            return Shown(_text(data), note="not JSON")
    return Shown(_text(data))
