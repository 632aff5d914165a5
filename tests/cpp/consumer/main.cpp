// A downstream program: round-trips a Control through the installed library,
// which names the version of the CMake package it was found as, and reads the
// installed schema the package points at.
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include <coupler/coupler.hpp>

int main() {
  const coupler::ControlMessage sent =
      coupler::ControlMessage::builder().object("robot1").values({0.5, -0.5}).event("gripper", true);
  const auto received = coupler::decode_as<coupler::ControlMessage>(coupler::encode(sent));
  if (received.objects.at("robot1").values != sent.objects.at("robot1").values) {
    std::cerr << "the Control did not survive the codec\n";
    return 1;
  }
  if (std::strcmp(coupler::version(), COUPLER_PACKAGE_VERSION) != 0) {
    std::cerr << "coupler::version() is " << coupler::version() << ", the CMake package " << COUPLER_PACKAGE_VERSION
              << "\n";
    return 1;
  }
  std::ifstream schema(COUPLER_PROTO_FILE);
  std::string first_line;
  if (!std::getline(schema, first_line)) {
    std::cerr << "no schema at " << COUPLER_PROTO_FILE << "\n";
    return 1;
  }
  return 0;
}
