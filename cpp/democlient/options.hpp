#pragma once

#include <chrono>
#include <cstdint>
#include <string>

struct Options {
  std::string address = "tcp://127.0.0.1:5555";
  std::uint64_t range = 0;  // round trips after the first
  bool timings = false;
  std::string timings_file;  // empty: no per-round-trip dump
  bool blocking_receive = false;
  bool trace = false;
  std::chrono::milliseconds timeout{5000};
};

// Parses the command line; prints help or an error and exits on bad input.
Options parse_options(int argc, char** argv);
