// valid_names: the names a refused lookup could have found, in one short line.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <coupler/wire/name_list.hpp>

using namespace coupler;

TEST_CASE("valid names are listed quoted, in the order given", "[name_list]") {
  CHECK(valid_names({"arm", "box"}) == "valid names: 'arm', 'box'");
}

TEST_CASE("a long list of valid names shows the first ones and how many more there are", "[name_list]") {
  CHECK(valid_names({"a", "b", "c", "d", "e"}, 3) == "valid names: 'a', 'b', 'c', ... and 2 more");
}

TEST_CASE("valid names are shown as peer text: one line, escaped and cut short", "[name_list]") {
  const std::string listed = valid_names({"evil\nname", std::string(1000, 'x')});
  CHECK(listed.find('\n') == std::string::npos);
  CHECK(listed.find("evil\\nname") != std::string::npos);
  CHECK(listed.size() < 200);
}

TEST_CASE("an empty list of valid names says there are none", "[name_list]") {
  CHECK(valid_names({}) == "there are no valid names");
}
