#include <coupler/wire/name_list.hpp>

#include <coupler/wire/peer_text.hpp>

namespace coupler {

std::string valid_names(const std::vector<std::string>& names, std::size_t listed) {
  if (names.empty()) return "there are no valid names";
  std::string out = "valid names: ";
  const std::size_t shown = names.size() <= listed ? names.size() : listed;
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    out += "'" + shown_peer_text(names[i], kListedNameLimit) + "'";
  }
  if (shown < names.size()) out += ", ... and " + std::to_string(names.size() - shown) + " more";
  return out;
}

}  // namespace coupler
