#pragma once
// A lone round trip through shared memory: one request and one answer frame
// at a time in a memfd of mode 0600 that only the server's user can open (as
// /proc/PID/fd/N), each side sleeping in futex(2) until the other has written
// (no spinning), so a same-host client's Control reaches its server and the
// Sensor comes back without a socket between them.
//
// The request and the answer each have a counter (a 32-bit futex word): a
// writer copies its frame, then bumps its counter and wakes the other side;
// a reader waits until the counter differs from the one it last saw. Only one
// client may use a channel at a time.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace coupler {

class SharedChannelServer {
 public:
  // A channel for frames of at most `capacity` bytes each way. Throws coupler::Error when the kernel refuses.
  explicit SharedChannelServer(std::size_t capacity);
  ~SharedChannelServer();
  SharedChannelServer(const SharedChannelServer&) = delete;
  SharedChannelServer& operator=(const SharedChannelServer&) = delete;

  // What a client opens: /proc/PID/fd/N.
  const std::string& path() const noexcept { return path_; }
  std::size_t capacity() const noexcept { return capacity_; }
  // The next request, valid until reply(); nullopt when none came within `timeout` (asleep meanwhile).
  std::optional<std::string_view> receive(std::chrono::milliseconds timeout);
  // Answers the request received last. Throws coupler::Error, one line, for a frame over the capacity.
  void reply(std::string_view frame);
  // Drops a request not answered yet (its client left): the next client starts afresh.
  void forget() noexcept;

 private:
  std::string path_;
  std::size_t capacity_;
  int fd_ = -1;
  std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
  std::uint32_t requests_seen_ = 0;
};

class SharedChannelClient {
 public:
  // Opens and maps the channel at `path`. Throws coupler::Error, one line, when it cannot.
  explicit SharedChannelClient(const std::string& path);
  ~SharedChannelClient();
  SharedChannelClient(const SharedChannelClient&) = delete;
  SharedChannelClient& operator=(const SharedChannelClient&) = delete;

  // Sends `request` and waits (asleep) for the answer, valid until the next exchange. Throws
  // coupler::TimeoutError past `timeout`, coupler::Error for a frame over the capacity.
  std::string_view exchange(std::string_view request, std::chrono::milliseconds timeout);
  // The largest frame each way, in bytes.
  std::size_t capacity() const noexcept { return capacity_; }

 private:
  std::size_t capacity_ = 0;
  std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
  std::uint32_t answers_seen_ = 0;
};

}  // namespace coupler
