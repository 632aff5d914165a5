// SharedRingWriter and SharedRingReader: the "shm" extension's ring of buffers in shared memory.

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstring>
#include <string>

#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/error.hpp>

using coupler::SharedRingReader;
using coupler::SharedRingWriter;
using coupler::SharedSlice;

namespace {

SharedSlice written(SharedRingWriter& ring, const std::string& payload) {
  const SharedRingWriter::Claim claim = ring.claim();
  std::memcpy(claim.data, payload.data(), payload.size());
  ring.publish(claim);
  return {claim.slot, claim.sequence, 0, payload.size()};
}

}  // namespace

TEST_CASE("a reader sees the bytes the writer published", "[shared_ring]") {
  SharedRingWriter ring(2, 4096, 0);
  const SharedRingReader reader(ring.announced());
  const SharedSlice slice = written(ring, "pixels");
  CHECK(std::string(reinterpret_cast<const char*>(reader.view(slice)), slice.length) == "pixels");
}

TEST_CASE("the ring's file can be opened by its owner only", "[shared_ring]") {
  const SharedRingWriter ring(2, 4096, 0);
  struct stat about {};
  REQUIRE(stat(ring.announced().path.c_str(), &about) == 0);
  CHECK((about.st_mode & 0777) == 0600);
}

TEST_CASE("a buffer written again is no longer current, and its old slice is refused", "[shared_ring]") {
  SharedRingWriter ring(2, 4096, 0);
  const SharedRingReader reader(ring.announced());
  const SharedSlice first = written(ring, "first");
  written(ring, "second");
  CHECK(reader.current(first));
  written(ring, "third");  // the ring has two buffers: this one takes the first's
  CHECK_FALSE(reader.current(first));
  CHECK_THROWS_WITH(reader.view(first), Catch::Contains("overwritten before it was read"));
}

TEST_CASE("a buffer index outside the ring is refused in one line", "[shared_ring]") {
  SharedRingWriter ring(2, 4096, 0);
  const SharedRingReader reader(ring.announced());
  SharedSlice slice = written(ring, "x");
  slice.slot = 7;
  CHECK_THROWS_WITH(reader.view(slice), "an answer names shared buffer 7; the ring has buffers 0 to 1");
}

TEST_CASE("a range past a buffer's end is refused", "[shared_ring]") {
  SharedRingWriter ring(1, 4096, 0);
  const SharedRingReader reader(ring.announced());
  SharedSlice slice = written(ring, "x");
  slice.length = 5000;
  CHECK_THROWS_WITH(reader.view(slice), Catch::Contains("which holds 4096"));
}

TEST_CASE("a ring that does not match its announcement is refused", "[shared_ring]") {
  const SharedRingWriter ring(2, 4096, 0);
  coupler::SharedMemoryRing announced = ring.announced();
  announced.slots = 3;
  CHECK_THROWS_AS(SharedRingReader(announced), coupler::Error);
}

TEST_CASE("a path that is not a ring cannot be mapped", "[shared_ring]") {
  coupler::SharedMemoryRing announced{"/proc/self/fd/999999", 2, 4096, 4096, 0};
  CHECK_THROWS_WITH(SharedRingReader(announced), Catch::StartsWith("cannot open the shared memory"));
}

TEST_CASE("only ipc and inproc addresses are on this host for certain") {
  CHECK(coupler::on_this_host("ipc:///tmp/coupler.sock"));
  CHECK(coupler::on_this_host("inproc://coupler"));
  CHECK_FALSE(coupler::on_this_host("tcp://127.0.0.1:5555"));
  CHECK_FALSE(coupler::on_this_host("ws://127.0.0.1:5555"));
  CHECK_FALSE(coupler::on_this_host("ipc"));
}
