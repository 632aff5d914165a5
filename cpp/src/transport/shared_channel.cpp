#include <coupler/transport/shared_channel.hpp>

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include <coupler/wire/error.hpp>
#include <coupler/wire/peer_text.hpp>

namespace coupler {
namespace {

constexpr char kMagic[8] = {'c', 'o', 'u', 'p', 'l', 'e', 'r', 'C'};
// Each counter and length on a cache line of its own: the two sides write different ones.
constexpr std::size_t kCapacityAt = 8;
constexpr std::size_t kRequestCounterAt = 64;
constexpr std::size_t kAnswerCounterAt = 128;
constexpr std::size_t kRequestLengthAt = 192;
constexpr std::size_t kAnswerLengthAt = 256;

using Clock = std::chrono::steady_clock;

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
std::size_t rounded_up(std::size_t bytes, std::size_t unit) { return (bytes + unit - 1) / unit * unit; }
std::size_t request_at() { return page_size(); }
std::size_t answer_at(std::size_t capacity) { return page_size() + rounded_up(capacity, page_size()); }
std::size_t total_size(std::size_t capacity) { return answer_at(capacity) + rounded_up(capacity, page_size()); }

std::uint32_t* word(std::uint8_t* base, std::size_t at) { return reinterpret_cast<std::uint32_t*>(base + at); }
std::uint64_t* length(std::uint8_t* base, std::size_t at) { return reinterpret_cast<std::uint64_t*>(base + at); }

// Sleeps until `*counter` differs from `seen` or `deadline` passes; the counter's value then.
std::uint32_t wait_for_change(std::uint32_t* counter, std::uint32_t seen, Clock::time_point deadline) {
  for (;;) {
    const std::uint32_t now = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
    if (now != seen) return now;
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return seen;
    const auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timespec timeout{static_cast<time_t>(nanoseconds / 1000000000), static_cast<long>(nanoseconds % 1000000000)};
    // Not FUTEX_PRIVATE: the word is shared with another process. Returns at once if it already changed.
    syscall(SYS_futex, counter, FUTEX_WAIT, seen, &timeout, nullptr, 0);
  }
}

void bump_and_wake(std::uint32_t* counter) {
  __atomic_fetch_add(counter, 1u, __ATOMIC_RELEASE);
  syscall(SYS_futex, counter, FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

void check_fits(std::size_t bytes, std::size_t capacity, const char* what) {
  if (bytes > capacity) {
    throw Error(std::string("a ") + what + " of " + std::to_string(bytes) + " bytes is over the shared channel's " +
                std::to_string(capacity) + "-byte frames");
  }
}

}  // namespace

SharedChannelServer::SharedChannelServer(std::size_t capacity) : capacity_(capacity) {
  if (capacity == 0) throw Error("a shared channel's frames must hold at least one byte");
  size_ = total_size(capacity);
  fd_ = memfd_create("coupler-channel", MFD_CLOEXEC);
  if (fd_ < 0) throw Error(std::string("cannot create a shared channel: ") + std::strerror(errno));
  if (fchmod(fd_, S_IRUSR | S_IWUSR) != 0 || ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    const std::string why = std::strerror(errno);
    close(fd_);
    throw Error("cannot size a shared channel: " + why);
  }
  void* mapped = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (mapped == MAP_FAILED) {
    const std::string why = std::strerror(errno);
    close(fd_);
    throw Error("cannot map a shared channel: " + why);
  }
  base_ = static_cast<std::uint8_t*>(mapped);
  std::memcpy(base_, kMagic, sizeof kMagic);
  const std::uint64_t announced = capacity;
  std::memcpy(base_ + kCapacityAt, &announced, sizeof announced);
  path_ = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd_);
}

SharedChannelServer::~SharedChannelServer() {
  munmap(base_, size_);
  close(fd_);
}

std::optional<std::string_view> SharedChannelServer::receive(std::chrono::milliseconds timeout) {
  std::uint32_t* counter = word(base_, kRequestCounterAt);
  const std::uint32_t now = wait_for_change(counter, requests_seen_, Clock::now() + timeout);
  if (now == requests_seen_) return std::nullopt;
  requests_seen_ = now;
  const std::uint64_t bytes = __atomic_load_n(length(base_, kRequestLengthAt), __ATOMIC_RELAXED);
  if (bytes > capacity_) return std::string_view();  // never written so by a client of this library
  return std::string_view(reinterpret_cast<const char*>(base_ + request_at()), bytes);
}

void SharedChannelServer::reply(std::string_view frame) {
  check_fits(frame.size(), capacity_, "reply");
  std::memcpy(base_ + answer_at(capacity_), frame.data(), frame.size());
  __atomic_store_n(length(base_, kAnswerLengthAt), std::uint64_t{frame.size()}, __ATOMIC_RELAXED);
  bump_and_wake(word(base_, kAnswerCounterAt));
}

void SharedChannelServer::forget() noexcept {
  requests_seen_ = __atomic_load_n(word(base_, kRequestCounterAt), __ATOMIC_ACQUIRE);
}

SharedChannelClient::SharedChannelClient(const std::string& path) {
  const std::string shown = shown_peer_text(path);
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open the shared channel " + shown + ": " + std::strerror(errno));
  struct stat about {};
  std::uint64_t capacity = 0;
  if (fstat(fd, &about) != 0 || about.st_uid != geteuid() || (about.st_mode & 077) != 0 ||
      static_cast<std::size_t>(about.st_size) < page_size() ||
      pread(fd, &capacity, sizeof capacity, kCapacityAt) != static_cast<ssize_t>(sizeof capacity) || capacity == 0 ||
      static_cast<std::uint64_t>(about.st_size) != total_size(static_cast<std::size_t>(capacity))) {
    close(fd);
    throw Error("the shared channel " + shown + " is not a channel of this user's");
  }
  capacity_ = static_cast<std::size_t>(capacity);
  size_ = total_size(capacity_);
  void* mapped = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) throw Error("cannot map the shared channel " + shown + ": " + std::strerror(errno));
  base_ = static_cast<std::uint8_t*>(mapped);
  if (std::memcmp(base_, kMagic, sizeof kMagic) != 0) {
    munmap(base_, size_);
    throw Error("the shared channel " + shown + " is not a channel of this user's");
  }
  answers_seen_ = __atomic_load_n(word(base_, kAnswerCounterAt), __ATOMIC_ACQUIRE);
}

SharedChannelClient::~SharedChannelClient() { munmap(base_, size_); }

std::string_view SharedChannelClient::exchange(std::string_view request, std::chrono::milliseconds timeout) {
  check_fits(request.size(), capacity_, "request");
  std::memcpy(base_ + request_at(), request.data(), request.size());
  __atomic_store_n(length(base_, kRequestLengthAt), std::uint64_t{request.size()}, __ATOMIC_RELAXED);
  bump_and_wake(word(base_, kRequestCounterAt));
  std::uint32_t* counter = word(base_, kAnswerCounterAt);
  const std::uint32_t now = wait_for_change(counter, answers_seen_, Clock::now() + timeout);
  if (now == answers_seen_) {
    throw TimeoutError("no answer through the shared channel within " + std::to_string(timeout.count()) + " ms");
  }
  answers_seen_ = now;
  const std::uint64_t bytes = __atomic_load_n(length(base_, kAnswerLengthAt), __ATOMIC_RELAXED);
  if (bytes > capacity_) throw Error("the shared channel's answer claims " + std::to_string(bytes) + " bytes");
  return std::string_view(reinterpret_cast<const char*>(base_ + answer_at(capacity_)), bytes);
}

}  // namespace coupler
