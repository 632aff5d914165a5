"""Text a peer chose (object names, error texts) made safe to show in a log line or a reply.

A peer's text could hold a newline that forges a log line, control
characters that rewrite a terminal, or a megabyte that floods the log: what
is shown is escaped to one printable line and cut to a bounded length.
"""

from __future__ import annotations

# Long enough for any real object or event name, short enough that a refusal stays one readable line.
PEER_TEXT_LIMIT = 200

_ELLIPSIS = "…"


def shown(text: str | bytes, limit: int = PEER_TEXT_LIMIT) -> str:
    """`text` as one printable line: control and non-printable characters escaped, cut to `limit` characters.

    A cut text ends with an ellipsis and says how long the original was.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    head = text[: limit + 1]
    escaped = "".join(c if c.isprintable() and c != "\\" else _escape(c) for c in head)
    if len(escaped) <= limit and len(text) <= limit:
        return escaped
    return f"{escaped[:limit]}{_ELLIPSIS} ({len(text)} characters)"


def _escape(character: str) -> str:
    if character == "\\":
        return "\\\\"
    return character.encode("unicode_escape").decode("ascii")
