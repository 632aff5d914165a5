// ReaderShare: the others' requests get a share after each of a driving controller's, then wait for its patience.

#include <catch2/catch.hpp>

#include <chrono>

#include <coupler/serve/reader_share.hpp>

using coupler::ReaderShare;
using namespace std::chrono_literals;

namespace {
const ReaderShare::Clock::time_point start{};
}  // namespace

TEST_CASE("the others are served while their share lasts", "[reader_share]") {
  ReaderShare share(2, 10ms);
  CHECK(share.may_serve(start));
  share.served(start);
  CHECK(share.may_serve(start));
  share.served(start);
  CHECK_FALSE(share.has_share());
  CHECK_FALSE(share.may_serve(start));
}

TEST_CASE("a controller's request renews the others' share", "[reader_share]") {
  ReaderShare share(1, 10ms);
  share.served(start);
  CHECK_FALSE(share.may_serve(start));
  share.controller_served();
  CHECK(share.has_share());
  CHECK(share.may_serve(start));
}

TEST_CASE("with the share used the next of the others is served once the patience has passed", "[reader_share]") {
  ReaderShare share(1, 10ms);
  share.served(start);
  CHECK(share.due() == start + 10ms);
  CHECK_FALSE(share.may_serve(start + 9ms));
  CHECK(share.may_serve(start + 10ms));
  share.served(start + 10ms);  // served on patience: the one after waits as long again
  CHECK_FALSE(share.may_serve(start + 19ms));
  CHECK(share.may_serve(start + 20ms));
}

TEST_CASE("a request that starts waiting with the share used waits the patience from its arrival", "[reader_share]") {
  ReaderShare share(1, 10ms);
  share.served(start);
  share.first_waits(start + 1s);
  CHECK_FALSE(share.may_serve(start + 1s + 9ms));
  CHECK(share.may_serve(start + 1s + 10ms));
}

TEST_CASE("a request that starts waiting while the share lasts is served at once", "[reader_share]") {
  ReaderShare share(1, 10ms);
  share.first_waits(start);
  CHECK(share.may_serve(start));
  CHECK(share.due() == start);
}

TEST_CASE("by default one request of the others goes after each of the controller's, and 2 ms after",
          "[reader_share]") {
  const ReaderShare share;
  CHECK(share.share() == 1u);
  CHECK(share.patience() == 2ms);
}
