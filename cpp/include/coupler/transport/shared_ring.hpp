#pragma once
// The "shm" extension's ring of buffers: a server on the same host as its
// client writes big payloads (camera images) into shared memory, and the
// ZeroMQ answer carries only where they lie (a SharedSlice).
//
// The ring is one memfd of mode 0600, so nothing is left behind however the
// server ends (SIGKILL included), and only the server's user can open it, as
// /proc/PID/fd/N. Byte 64 + 8 i holds the sequence number of what buffer i
// holds, 0 while it is being written; sequences only grow. A reader checks
// that sequence before handing out a view and can check it again after
// reading: a buffer is rewritten only `slots` payloads later, so a client that
// keeps an answer's views past that many further answers (of any client) sees
// `current()` turn false rather than reading a buffer being overwritten
// unknowingly.

#include <cstddef>
#include <cstdint>
#include <string>

#include <coupler/wire/messages.hpp>

namespace coupler {

// Whether a peer at `address` is on this host for certain: ipc:// and inproc:// only, never tcp://. Only there does
// a server offer shared memory (a ring, a channel), and a client map it.
bool on_this_host(const std::string& address);

class SharedRingWriter {
 public:
  // A ring of `slots` buffers of `slot_bytes` each (rounded up to whole pages); payloads that reach `min_bytes`
  // together go through it. Its pages cost memory only once written. Throws coupler::Error when the kernel
  // refuses the memfd.
  SharedRingWriter(std::uint32_t slots, std::uint64_t slot_bytes, std::uint64_t min_bytes);
  ~SharedRingWriter();
  SharedRingWriter(const SharedRingWriter&) = delete;
  SharedRingWriter& operator=(const SharedRingWriter&) = delete;

  // What the handshake announces.
  const SharedMemoryRing& announced() const noexcept { return announced_; }

  // A buffer being written: fill `data` (slot_bytes long), then publish().
  struct Claim {
    std::uint32_t slot = 0;
    std::uint64_t sequence = 0;
    std::uint8_t* data = nullptr;
  };
  // The next buffer of the ring, marked as being written (readers of what it held see it as gone).
  Claim claim();
  // Marks the claimed buffer as holding `claim.sequence`.
  void publish(const Claim& claim);

 private:
  SharedMemoryRing announced_;
  int fd_ = -1;
  std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t next_sequence_ = 1;
};

class SharedRingReader {
 public:
  // Opens and maps (read-only) the ring `announced`. Throws coupler::Error, one line, when it cannot (another
  // host or container, another user, a ring that does not match its announcement).
  explicit SharedRingReader(const SharedMemoryRing& announced);
  ~SharedRingReader();
  SharedRingReader(const SharedRingReader&) = delete;
  SharedRingReader& operator=(const SharedRingReader&) = delete;

  const SharedMemoryRing& announced() const noexcept { return announced_; }

  // The bytes of `slice`, once checked: throws coupler::Error, one line, for a buffer index or range outside the
  // ring, and for a buffer that no longer holds `slice.sequence` (overwritten, or being written).
  const std::uint8_t* view(const SharedSlice& slice) const;
  // Whether the buffer of `slice` still holds what it held when `slice` was sent.
  bool current(const SharedSlice& slice) const noexcept;

 private:
  SharedMemoryRing announced_;
  const std::uint8_t* base_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace coupler
