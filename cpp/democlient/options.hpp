#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <coupler/wire/limits.hpp>

struct Options {
  std::string address = coupler::limits::kDefaultAddress;
  std::uint64_t range = 0;  // round trips after the first
  bool timings = false;
  std::string timings_file;  // empty: no per-round-trip dump
  bool blocking_receive = false;
  bool shared_channel = false;
  bool trace = false;
  std::chrono::milliseconds timeout = coupler::limits::kRequestTimeout;
  std::string curve_server_key;  // path of the server's NAME.key; empty: no CURVE
  std::string curve_key;         // path of this client's NAME.key_secret
  double heartbeat = std::chrono::duration<double>(coupler::limits::kHeartbeatInterval).count();  // seconds; 0: off
  std::int64_t max_frame_bytes = coupler::limits::kMaxFrameBytes;
  std::string find_red;  // a camera: print where it sees red, and do nothing else; empty: drive the scene
  std::string worlds_images;  // a camera: print a digest of its images of every world, and do nothing else
};

// Parses the command line; prints help or an error and exits on bad input.
Options parse_options(int argc, char** argv);
