#pragma once
// Every failure coupler reports derives from coupler::Error.

#include <stdexcept>
#include <string>

#include <coupler/wire/peer_text.hpp>
#include <coupler/wire/types.hpp>

namespace coupler {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A frame that is not a valid message, or a message that breaks the protocol.
class ProtocolError : public Error {
 public:
  ProtocolError(ErrorCode code, const std::string& what) : Error(what), code_(code), text_(what) {}
  explicit ProtocolError(const std::string& what) : ProtocolError(ErrorCode::MalformedFrame, what) {}
  ErrorCode code() const noexcept { return code_; }
  // The whole text. what() ends at the first NUL byte, and the names a
  // refusal quotes come from the peer's frame, where NUL is a valid character.
  const std::string& text() const noexcept { return text_; }

 private:
  ErrorCode code_;
  std::string text_;
};

// A blocking call whose peer did not answer in time.
class TimeoutError : public Error {
 public:
  using Error::Error;
};

// A request that changes the simulation (a Control, a Reset) timed out and
// the session re-established itself with a new handshake (the server had
// restarted, say); the request was not sent again, since it may or may not
// have been applied. The session is usable: decide what to send next.
class ReconnectedError : public TimeoutError {
 public:
  using TimeoutError::TimeoutError;
};

// After a reconnect, the server's handshake describes another scene than the
// session was using.
class SceneChangedError : public Error {
 public:
  using Error::Error;
};

// A request that needs a coupler extension the server did not announce (a
// Click server announces none). Sent anyway, its meaning would silently change
// (a Click server steps once whatever steps says), so it is refused unsent.
class ExtensionNotSupportedError : public Error {
 public:
  ExtensionNotSupportedError(const std::string& extension, const std::string& what, const std::string& server)
      : Error(what + " needs the coupler extension '" + extension + "', which " + server + " did not announce"),
        extension_(extension) {}
  const std::string& extension() const noexcept { return extension_; }

 private:
  std::string extension_;
};

// The peer answered with an ErrorMessage.
class RemoteError : public Error {
 public:
  // what() shows the peer's text escaped and cut (it ends up in log lines); text() is as the peer sent it.
  RemoteError(int code, const std::string& text)
      : Error("peer reported error " + std::to_string(code) + ": " + shown_peer_text(text)), code_(code), text_(text) {}
  int code() const noexcept { return code_; }
  const std::string& text() const noexcept { return text_; }

 private:
  int code_;
  std::string text_;
};

}  // namespace coupler
