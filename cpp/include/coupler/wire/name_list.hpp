#pragma once
// The names a lookup could have found, for the one line that refuses a name that does not exist
// ("no object named 'armm'; valid names: 'arm', 'box'"), as MuJoCo's named access lists them.
// The names come from a handshake, so a peer chose them: each is shown as peer text, cut short,
// and a long list names its first few and how many more there are. Python binds this
// (coupler.wire.name_list).

#include <cstddef>
#include <string>
#include <vector>

namespace coupler {

// How many names a list shows before "and N more", and how many characters of each.
constexpr std::size_t kNamesListed = 12;
constexpr std::size_t kListedNameLimit = 60;

// "valid names: 'a', 'b', 'c'", "valid names: 'a', ... and 3 more", or "there are no valid names".
std::string valid_names(const std::vector<std::string>& names, std::size_t listed = kNamesListed);

// The keys of a map by name, in its order, for valid_names.
template <class Map>
std::vector<std::string> names_of(const Map& map) {
  std::vector<std::string> names;
  names.reserve(map.size());
  for (const auto& entry : map) names.push_back(entry.first);
  return names;
}

}  // namespace coupler
