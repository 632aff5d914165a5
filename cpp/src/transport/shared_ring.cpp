#include <coupler/transport/shared_ring.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <coupler/wire/error.hpp>
#include <coupler/wire/peer_text.hpp>

namespace coupler {
namespace {

constexpr char kMagic[8] = {'c', 'o', 'u', 'p', 'l', 'e', 'r', 'R'};
constexpr std::uint64_t kSequencesAt = 64;
constexpr std::uint32_t kMaxSlots = 1024;

std::uint64_t page_size() { return static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)); }

std::uint64_t rounded_up(std::uint64_t bytes, std::uint64_t unit) { return (bytes + unit - 1) / unit * unit; }

std::string reason() { return std::strerror(errno); }

std::uint64_t* sequence_of(std::uint8_t* base, std::uint32_t slot) {
  return reinterpret_cast<std::uint64_t*>(base + kSequencesAt + 8 * static_cast<std::uint64_t>(slot));
}

const std::uint64_t* sequence_of(const std::uint8_t* base, std::uint32_t slot) {
  return reinterpret_cast<const std::uint64_t*>(base + kSequencesAt + 8 * static_cast<std::uint64_t>(slot));
}

}  // namespace

SharedRingWriter::SharedRingWriter(std::uint32_t slots, std::uint64_t slot_bytes, std::uint64_t min_bytes) {
  if (slots == 0 || slots > kMaxSlots) {
    throw Error("a shared-memory ring has 1 to " + std::to_string(kMaxSlots) + " buffers, not " + std::to_string(slots));
  }
  if (slot_bytes == 0) throw Error("a shared-memory ring's buffers must hold at least one byte");
  const std::uint64_t page = page_size();
  announced_.slots = slots;
  announced_.slot_bytes = rounded_up(slot_bytes, page);
  announced_.data_offset = rounded_up(kSequencesAt + 8 * static_cast<std::uint64_t>(slots), page);
  announced_.min_bytes = min_bytes;
  size_ = static_cast<std::size_t>(announced_.data_offset + announced_.slot_bytes * slots);
  // A memfd lives exactly as long as someone holds it: nothing to unlink, whatever ends the server.
  fd_ = memfd_create("coupler-shm", MFD_CLOEXEC);
  if (fd_ < 0) throw Error("cannot create shared memory for the \"shm\" extension: " + reason());
  if (fchmod(fd_, S_IRUSR | S_IWUSR) != 0 || ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    const std::string why = reason();
    close(fd_);
    throw Error("cannot size the shared memory of the \"shm\" extension: " + why);
  }
  void* mapped = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (mapped == MAP_FAILED) {
    const std::string why = reason();
    close(fd_);
    throw Error("cannot map the shared memory of the \"shm\" extension: " + why);
  }
  base_ = static_cast<std::uint8_t*>(mapped);
  std::memcpy(base_, kMagic, sizeof kMagic);
  std::memcpy(base_ + 8, &announced_.slots, sizeof announced_.slots);
  std::memcpy(base_ + 16, &announced_.slot_bytes, sizeof announced_.slot_bytes);
  std::memcpy(base_ + 24, &announced_.data_offset, sizeof announced_.data_offset);
  announced_.path = "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd_);
}

SharedRingWriter::~SharedRingWriter() {
  munmap(base_, size_);
  close(fd_);
}

SharedRingWriter::Claim SharedRingWriter::claim() {
  const std::uint64_t sequence = next_sequence_++;
  const auto slot = static_cast<std::uint32_t>((sequence - 1) % announced_.slots);
  __atomic_store_n(sequence_of(base_, slot), std::uint64_t{0}, __ATOMIC_RELAXED);
  // The mark must be seen before any byte of the new payload: a reader checking after it read sees 0.
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return {slot, sequence, base_ + announced_.data_offset + announced_.slot_bytes * slot};
}

void SharedRingWriter::publish(const Claim& claim) {
  __atomic_store_n(sequence_of(base_, claim.slot), claim.sequence, __ATOMIC_RELEASE);
}

bool on_this_host(const std::string& address) {
  return address.rfind("ipc://", 0) == 0 || address.rfind("inproc://", 0) == 0;
}

SharedRingReader::SharedRingReader(const SharedMemoryRing& announced) : announced_(announced) {
  const std::string shown = shown_peer_text(announced.path);
  if (announced.slots == 0 || announced.slots > kMaxSlots || announced.slot_bytes == 0 ||
      announced.data_offset < kSequencesAt + 8 * static_cast<std::uint64_t>(announced.slots)) {
    throw Error("the shared memory announced (" + shown + ") has an impossible shape");
  }
  const int fd = open(announced.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open the shared memory " + shown + ": " + reason());
  struct stat about {};
  const std::uint64_t size = announced.data_offset + announced.slot_bytes * announced.slots;
  if (fstat(fd, &about) != 0 || about.st_uid != geteuid() || (about.st_mode & 077) != 0 ||
      static_cast<std::uint64_t>(about.st_size) < size) {
    close(fd);
    throw Error("the shared memory " + shown + " is not a ring of this user's of the size announced");
  }
  size_ = static_cast<std::size_t>(size);
  void* mapped = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);  // the mapping keeps the memory
  if (mapped == MAP_FAILED) throw Error("cannot map the shared memory " + shown + ": " + reason());
  base_ = static_cast<const std::uint8_t*>(mapped);
  std::uint32_t slots = 0;
  std::uint64_t slot_bytes = 0;
  std::memcpy(&slots, base_ + 8, sizeof slots);
  std::memcpy(&slot_bytes, base_ + 16, sizeof slot_bytes);
  if (std::memcmp(base_, kMagic, sizeof kMagic) != 0 || slots != announced.slots || slot_bytes != announced.slot_bytes) {
    munmap(const_cast<std::uint8_t*>(base_), size_);
    throw Error("the shared memory " + shown + " is not the ring announced");
  }
}

SharedRingReader::~SharedRingReader() { munmap(const_cast<std::uint8_t*>(base_), size_); }

const std::uint8_t* SharedRingReader::view(const SharedSlice& slice) const {
  if (slice.slot >= announced_.slots) {
    throw Error("an answer names shared buffer " + std::to_string(slice.slot) + "; the ring has buffers 0 to " +
                std::to_string(announced_.slots - 1));
  }
  if (slice.offset > announced_.slot_bytes || slice.length > announced_.slot_bytes - slice.offset) {
    throw Error("an answer names bytes " + std::to_string(slice.offset) + " to " +
                std::to_string(slice.offset + slice.length) + " of shared buffer " + std::to_string(slice.slot) +
                ", which holds " + std::to_string(announced_.slot_bytes));
  }
  const std::uint64_t holds = __atomic_load_n(sequence_of(base_, slice.slot), __ATOMIC_ACQUIRE);
  if (holds != slice.sequence) {
    throw Error("shared buffer " + std::to_string(slice.slot) + " no longer holds payload " +
                std::to_string(slice.sequence) + " (it holds " + std::to_string(holds) +
                "): it was overwritten before it was read");
  }
  return base_ + announced_.data_offset + announced_.slot_bytes * slice.slot + slice.offset;
}

bool SharedRingReader::current(const SharedSlice& slice) const noexcept {
  if (slice.slot >= announced_.slots) return false;
  // Reads of the payload made before this call must not move past the check.
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return __atomic_load_n(sequence_of(base_, slice.slot), __ATOMIC_ACQUIRE) == slice.sequence;
}

}  // namespace coupler
