// WaitingRequests: requests that wait for their turn are served controllers first, the others on their share.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <coupler/serve/waiting_requests.hpp>

using coupler::ReaderShare;
using coupler::WaitingRequests;
using namespace std::chrono_literals;

namespace {
const ReaderShare::Clock::time_point start{};
constexpr bool kController = true;
constexpr bool kOther = false;
constexpr bool kDriving = true;
}  // namespace

TEST_CASE("a controller's request is taken before the others that came first", "[waiting_requests]") {
  WaitingRequests<std::string> waiting;
  waiting.arrived("reader", kOther, start);
  waiting.arrived("controller", kController, start);
  CHECK(waiting.take(start, kDriving) == "controller");
  CHECK(waiting.take(start, kDriving) == "reader");
  CHECK(waiting.empty());
}

TEST_CASE("the others are taken in arrival order", "[waiting_requests]") {
  WaitingRequests<std::string> waiting;
  for (const char* peer : {"reader1", "newcomer", "reader2"}) waiting.arrived(peer, kOther, start);
  CHECK(waiting.take(start, !kDriving) == "reader1");
  CHECK(waiting.take(start, !kDriving) == "newcomer");
  CHECK(waiting.take(start, !kDriving) == "reader2");
  CHECK_FALSE(waiting.take(start, !kDriving));
}

TEST_CASE("while a controller drives the others wait once their share is used", "[waiting_requests]") {
  WaitingRequests<std::string> waiting(ReaderShare(1, 10ms));
  waiting.arrived("reader1", kOther, start);
  waiting.arrived("reader2", kOther, start);
  CHECK(waiting.take(start, kDriving) == "reader1");
  CHECK_FALSE(waiting.take(start + 9ms, kDriving));
  CHECK(waiting.due() == start + 10ms);
  CHECK(waiting.take(start + 10ms, kDriving) == "reader2");
}

TEST_CASE("without a driving controller the others do not wait for a share", "[waiting_requests]") {
  WaitingRequests<std::string> waiting(ReaderShare(1, 10ms));
  waiting.arrived("reader1", kOther, start);
  waiting.arrived("reader2", kOther, start);
  CHECK(waiting.take(start, !kDriving) == "reader1");
  CHECK(waiting.take(start, !kDriving) == "reader2");
}

TEST_CASE("a controller's request taken renews the others' share", "[waiting_requests]") {
  WaitingRequests<std::string> waiting(ReaderShare(1, 10ms));
  waiting.arrived("reader1", kOther, start);
  waiting.arrived("reader2", kOther, start);
  CHECK(waiting.take(start, kDriving) == "reader1");
  waiting.arrived("controller", kController, start);
  CHECK(waiting.take(start, kDriving) == "controller");
  CHECK(waiting.take(start, kDriving) == "reader2");
}

TEST_CASE("a controller served elsewhere renews the others' share too", "[waiting_requests]") {
  WaitingRequests<std::string> waiting(ReaderShare(1, 10ms));
  waiting.other_served(start);
  waiting.arrived("reader", kOther, start);
  CHECK_FALSE(waiting.take(start, kDriving));
  waiting.controller_served();
  CHECK(waiting.take(start, kDriving) == "reader");
}

TEST_CASE("one of the others arriving with their share used waits the patience from its arrival",
          "[waiting_requests]") {
  WaitingRequests<std::string> waiting(ReaderShare(1, 10ms));
  waiting.other_served(start);
  waiting.arrived("reader", kOther, start + 1s);
  CHECK_FALSE(waiting.may_serve(start + 1s + 9ms));
  CHECK(waiting.take(start + 1s + 10ms, kDriving) == "reader");
}

TEST_CASE("a request handed back waits ahead of those that came after it", "[waiting_requests]") {
  WaitingRequests<std::string> waiting;
  waiting.arrived("reader2", kOther, start);
  waiting.arrived("controller2", kController, start);
  waiting.handed_back("reader1", kOther, start);
  waiting.handed_back("controller1", kController, start);
  CHECK(waiting.take_any() == "controller1");
  CHECK(waiting.take_any() == "controller2");
  CHECK(waiting.take_any() == "reader1");
  CHECK(waiting.take_any() == "reader2");
}

TEST_CASE("take_any serves the others with their share used", "[waiting_requests]") {
  WaitingRequests<std::string> waiting(ReaderShare(0, 10ms));
  waiting.arrived("reader", kOther, start);
  CHECK_FALSE(waiting.take(start, kDriving));
  CHECK(waiting.take_any() == "reader");
}

TEST_CASE("the queue is full at its most others waiting, controllers aside", "[waiting_requests]") {
  WaitingRequests<std::string> waiting(ReaderShare(), 2);
  waiting.arrived("reader1", kOther, start);
  waiting.arrived("controller", kController, start);
  CHECK_FALSE(waiting.full());
  waiting.arrived("reader2", kOther, start);
  CHECK(waiting.full());
}

TEST_CASE("take_others leaves none of the others waiting, in order", "[waiting_requests]") {
  WaitingRequests<std::string> waiting;
  waiting.arrived("reader1", kOther, start);
  waiting.arrived("reader2", kOther, start);
  const auto others = waiting.take_others();
  CHECK(others.size() == 2);
  CHECK(others.front() == "reader1");
  CHECK_FALSE(waiting.others_wait());
  CHECK(waiting.empty());
}

TEST_CASE("by default the others may wait 4096 at a time", "[waiting_requests]") {
  CHECK(WaitingRequests<std::string>().max_waiting() == 4096u);
}
