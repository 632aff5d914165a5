#pragma once
// Text a peer chose (object and event names, error texts) made safe to show in a reply or a log
// line: one printable line, cut to a bounded length, so that a newline cannot forge a log line,
// control characters cannot rewrite a terminal, invisible or reordering characters cannot hide
// part of a line and a megabyte cannot flood the log. Control, format, separator, private-use
// and noncharacters and the backslash are escaped as Python's unicode_escape spells them; bytes
// that are not UTF-8 are shown as U+FFFD. Python binds this (coupler.wire.peer_text).

#include <cstddef>
#include <string>

namespace coupler {

// Long enough for any real name, short enough that a refusal stays one readable line.
constexpr std::size_t kPeerTextLimit = 200;

// `text` (UTF-8) escaped to one line; cut to `limit` characters with an ellipsis naming its length.
std::string shown_peer_text(const std::string& text, std::size_t limit = kPeerTextLimit);

}  // namespace coupler
