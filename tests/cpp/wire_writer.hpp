#pragma once
// Builds protobuf wire bytes by hand, for frames the encoder would never make.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

class WireWriter {
 public:
  void varint_field(int field, std::uint64_t value) {
    varint(static_cast<std::uint64_t>(field) << 3);
    varint(value);
  }
  void bytes_field(int field, const std::string& data) {
    varint((static_cast<std::uint64_t>(field) << 3) | 2);
    varint(data.size());
    bytes_ += data;
  }
  void packed_doubles_field(int field, const std::vector<double>& values) {
    std::string data(values.size() * sizeof(double), '\0');
    std::memcpy(data.data(), values.data(), data.size());  // little-endian host, as the wire
    bytes_field(field, data);
  }
  const std::string& bytes() const { return bytes_; }

 private:
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      bytes_ += static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    bytes_ += static_cast<char>(value);
  }
  std::string bytes_;
};
