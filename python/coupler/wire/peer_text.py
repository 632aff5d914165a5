"""Text a peer chose (object names, error texts) made safe to show in a log line or a reply.

A peer's text could hold a newline that forges a log line, control
characters that rewrite a terminal, or a megabyte that floods the log: what
is shown is escaped to one printable line and cut to a bounded length. The
C++ rules (coupler/wire/peer_text.hpp), bound, so that every server path
shows the same text: `shown(text, limit=PEER_TEXT_LIMIT)` takes str, or
bytes read as UTF-8 with U+FFFD for what is not.
"""

from coupler._native import peer_text as _peer_text

# Long enough for any real object or event name, short enough that a refusal stays one readable line.
PEER_TEXT_LIMIT: int = _peer_text.limit
shown = _peer_text.shown

__all__ = ["PEER_TEXT_LIMIT", "shown"]
