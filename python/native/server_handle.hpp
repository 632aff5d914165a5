#pragma once
// The C++ Server as coupler._native.Server holds it, for the bindings that
// serve through it (coupler._native.HotPath).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

#include "conversions.hpp"

namespace coupler::python {

namespace py = pybind11;

// A Python callable that C++ may call, copy and drop from any thread: it
// takes the GIL for each, the last drop included.
class PythonCallback {
 public:
  explicit PythonCallback(py::object callable) : callable_(new py::object(std::move(callable)), release) {}

  void operator()(const std::string& text, const char* where) const {
    py::gil_scoped_acquire gil;
    try {
      (*callable_)(text);
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(where);
    }
  }

 private:
  static void release(py::object* callable) {
    py::gil_scoped_acquire gil;
    delete callable;
  }

  std::shared_ptr<py::object> callable_;
};

// Owns the C++ Server so that close() can end it (unbinding, and removing an
// ipc:// socket file) before Python drops the object.
class ServerHandle {
 public:
  ServerHandle(const std::string& address, py::object on_bad_frame, double heartbeat, double heartbeat_timeout,
               std::int64_t max_frame_bytes, std::optional<std::pair<std::string, std::string>> curve_key_pair,
               std::vector<std::string> curve_allowed_clients, py::object on_refused_client, double handshake_timeout,
               const std::vector<int>& decode_on_demand) {
    ServerOptions options;
    for (const int kind : decode_on_demand) {
      if (kind < 0 || kind > static_cast<int>(MessageType::SensorRequest)) {
        throw Error("decode_on_demand: " + std::to_string(kind) + " is not a message type");
      }
      options.decode_on_demand.push_back(static_cast<MessageType>(kind));
    }
    options.heartbeat_interval = milliseconds(heartbeat);
    options.heartbeat_timeout = milliseconds(heartbeat_timeout);
    options.max_frame_bytes = max_frame_bytes;
    if (!(handshake_timeout >= 0.0 && handshake_timeout <= 3600.0)) {
      throw Error("handshake_timeout must be from 0 to 3600 seconds");
    }
    options.handshake_timeout = milliseconds(handshake_timeout);
    if (curve_key_pair) options.curve_key_pair = CurveKeyPair{curve_key_pair->first, curve_key_pair->second};
    options.curve_allowed_clients = std::move(curve_allowed_clients);
    if (!on_refused_client.is_none()) {
      // Called from the authentication thread.
      options.on_refused_client = [callback = PythonCallback(std::move(on_refused_client))](const std::string& text) {
        callback(text, "coupler._native.Server on_refused_client");
      };
    }
    if (!on_bad_frame.is_none()) {
      // Called from receive(), which runs without the GIL.
      options.on_bad_frame = [callback = PythonCallback(std::move(on_bad_frame))](const std::string& problem) {
        callback(problem, "coupler._native.Server on_bad_frame");
      };
    }
    py::gil_scoped_release released;  // the authentication thread may be waiting for the GIL
    server_.emplace(address, std::move(options));
  }

  ~ServerHandle() { close(); }

  Server& get() {
    if (!server_) throw Error("the server is closed");
    return *server_;
  }

  void close() {
    // Stopping the authentication thread waits for it, and it may be waiting for the GIL.
    py::gil_scoped_release released;
    server_.reset();
  }

 private:
  std::optional<Server> server_;
};

}  // namespace coupler::python
