#pragma once
// CURVE key pairs written as ZeroMQ certificate files, as `coupler keygen` writes them.

#include <array>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>
#include <zmq.h>

#include <coupler/transport/curve_keys.hpp>

// A directory of its own under the temp directory, removed with the object.
class TempDir {
 public:
  TempDir() {
    static int serial = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("coupler-curve-" + std::to_string(::getpid()) + "-" + std::to_string(serial++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Writes directory/NAME.key and directory/NAME.key_secret; returns the pair.
inline coupler::CurveKeyPair write_key_pair(const std::filesystem::path& directory, const std::string& name) {
  std::array<char, 41> public_key{};
  std::array<char, 41> secret_key{};
  zmq_curve_keypair(public_key.data(), secret_key.data());
  std::ofstream(directory / (name + ".key")) << "#   ZeroMQ CURVE Public Certificate\n\nmetadata\ncurve\n"
                                             << "    public-key = \"" << public_key.data() << "\"\n";
  std::ofstream(directory / (name + ".key_secret"))
      << "#   ZeroMQ CURVE **Secret** Certificate\n\nmetadata\ncurve\n"
      << "    public-key = \"" << public_key.data() << "\"\n    secret-key = \"" << secret_key.data() << "\"\n";
  std::filesystem::permissions(directory / (name + ".key_secret"), std::filesystem::perms::owner_read |
                                                                       std::filesystem::perms::owner_write);
  return coupler::CurveKeyPair{public_key.data(), secret_key.data()};
}
