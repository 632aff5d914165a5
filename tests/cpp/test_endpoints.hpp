#pragma once
// Addresses for tests: a fresh one per call, on each transport.

#include <atomic>
#include <filesystem>
#include <string>

#include <unistd.h>

inline std::string fresh_address(const std::string& transport) {
  static std::atomic<int> counter{0};
  const std::string name = "coupler-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  if (transport == "inproc") return "inproc://" + name;
  if (transport == "ipc") return "ipc://" + (std::filesystem::temp_directory_path() / name).string();
  return "tcp://127.0.0.1:*";  // the server reports the port it got
}
