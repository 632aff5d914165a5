// Reads ZeroMQ certificate files (ZPL: "name = value" lines nested by
// four-space indentation, '#' comments) far enough to find the keys in their
// "curve" section.

#include <coupler/transport/curve_keys.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <zmq.h>

#include <coupler/wire/error.hpp>

namespace coupler {
namespace {

constexpr std::size_t kZ85KeyLength = 40;

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// Every "name = value" of the "curve" section, by name.
std::map<std::string, std::string> curve_section(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw Error("cannot read the CURVE certificate " + path);
  std::map<std::string, std::string> values;
  std::string section;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    const std::string content = trim(line);
    if (content.empty() || content[0] == '#') continue;
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == 0) {
      section = content;
      continue;
    }
    if (section != "curve") continue;
    const auto equals = content.find('=');
    if (equals == std::string::npos) {
      throw Error(path + " line " + std::to_string(number) + ": expected 'name = value', got '" + content + "'");
    }
    std::string value = trim(content.substr(equals + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    values[trim(content.substr(0, equals))] = value;
  }
  return values;
}

std::string z85_key(const std::map<std::string, std::string>& section, const std::string& name,
                    const std::string& path) {
  const auto found = section.find(name);
  if (found == section.end()) throw Error(path + " has no " + name + " in its curve section");
  const std::string& key = found->second;
  std::array<std::uint8_t, 32> binary{};
  if (key.size() != kZ85KeyLength || zmq_z85_decode(binary.data(), key.c_str()) == nullptr) {
    throw Error(path + ": " + name + " is not a 40-character Z85 CURVE key");
  }
  return key;
}

// A secret key file must be the owner's alone; chmod 600 makes it so.
void check_private(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::perms perms = fs::status(path, error).permissions();
  if (error) throw Error("cannot read the CURVE certificate " + path + ": " + error.message());
  const fs::perms others = fs::perms::group_all | fs::perms::others_all;
  if ((perms & others) != fs::perms::none) {
    std::ostringstream mode;
    mode << std::oct << static_cast<unsigned>(perms & fs::perms::mask);
    throw Error("the secret key " + path + " has mode 0" + mode.str() +
                ": group or others may read it; run chmod 600 " + path);
  }
}

}  // namespace

CurveKeyPair load_curve_key_pair(const std::string& path) {
  const auto section = curve_section(path);
  if (section.find("secret-key") == section.end()) {
    throw Error(path + " holds no secret key: give the NAME.key_secret file");
  }
  check_private(path);
  return CurveKeyPair{z85_key(section, "public-key", path), z85_key(section, "secret-key", path)};
}

std::string load_curve_public_key(const std::string& path) { return z85_key(curve_section(path), "public-key", path); }

std::vector<std::string> load_curve_public_keys(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    if (entry.path().extension() == ".key") files.push_back(entry.path());
  }
  if (error) throw Error("cannot read the CURVE allow-list directory " + directory + ": " + error.message());
  std::sort(files.begin(), files.end());
  std::vector<std::string> keys;
  for (const auto& file : files) keys.push_back(load_curve_public_key(file.string()));
  if (keys.empty()) throw Error("the CURVE allow-list directory " + directory + " holds no *.key file");
  return keys;
}

}  // namespace coupler
