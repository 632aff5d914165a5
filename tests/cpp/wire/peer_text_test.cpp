#include <string>

#include <catch2/catch.hpp>

#include <coupler/wire/error.hpp>
#include <coupler/wire/peer_text.hpp>

using coupler::shown_peer_text;

TEST_CASE("a newline in peer text cannot start a forged log line", "[peer_text]") {
  CHECK(shown_peer_text("arm\nWARNING forged") == "arm\\nWARNING forged");
}

TEST_CASE("a bidirectional override in peer text is shown escaped", "[peer_text]") {
  CHECK(shown_peer_text("arm\u202Egpj.exe") == "arm\\u202egpj.exe");
}

TEST_CASE("peer text bytes that are not UTF-8 are shown as replacement characters", "[peer_text]") {
  CHECK(shown_peer_text(std::string("ok\xff\xc0\xaf!")) == "ok\uFFFD\uFFFD\uFFFD!");
}

TEST_CASE("a truncated UTF-8 sequence at the end of peer text is shown as replacement characters", "[peer_text]") {
  CHECK(shown_peer_text(std::string("ab\xe2\x80")) == "ab\uFFFD\uFFFD");
}

TEST_CASE("long peer text is cut at the limit in characters, naming its length", "[peer_text]") {
  std::string text;
  for (int i = 0; i < 5; ++i) text += "\xc3\xa9";  // é
  CHECK(shown_peer_text(text, 3) == "\xc3\xa9\xc3\xa9\xc3\xa9\u2026 (5 characters)");
}

TEST_CASE("a remote error's message shows the peer's text escaped and cut, its text as the peer sent it",
          "[peer_text]") {
  const std::string text = "refused\nERROR forged" + std::string(1000, 'x');
  const coupler::RemoteError error(103, text);
  const std::string message = error.what();
  CHECK(message.rfind("peer reported error 103: refused\\nERROR forged", 0) == 0);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(message.size() < 300);
  CHECK(error.text() == text);
}
