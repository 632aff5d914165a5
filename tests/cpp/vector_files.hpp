#pragma once
// Reading the shared test vectors (tests/vectors/NAME.bin).

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

inline std::string read_vector_file(const std::string& name) {
  std::ifstream file(std::string(COUPLER_VECTORS_DIR) + "/" + name + ".bin", std::ios::binary);
  REQUIRE(file.good());
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}
