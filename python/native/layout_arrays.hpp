#pragma once
// The flat layouts as coupler._native holds them, with their NumPy arrays, for
// the bindings that read and encode through them (coupler._native.HotPath).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <pybind11/pybind11.h>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/sensor_layout.hpp>
#include <coupler/transport/server.hpp>

#include "conversions.hpp"

namespace coupler::python {

namespace py = pybind11;

inline HandshakeMessage handshake_from(const py::bytes& frame) { return decode_as<HandshakeMessage>(std::string(frame)); }

// A SensorLayout with the array it encodes from, and the handshake it lays out (shared with the
// SensorReadings taken as its arrays).
struct SensorArrays {
  explicit SensorArrays(const py::bytes& frame)
      : handshake(std::make_shared<const HandshakeMessage>(handshake_from(frame))),
        shared(std::make_shared<SensorLayout>(*handshake)),
        layout(*shared),
        values(zeros(layout.size(), "float64")),
        data(data_of<double>(values)) {}
  SensorArrays(const SensorArrays&) = delete;
  SensorArrays& operator=(const SensorArrays&) = delete;

  // A new array each time, so readings handed out earlier keep their numbers.
  py::object read(const py::bytes& frame) {
    py::object numbers = empty(layout.size());
    const std::optional<double> time = layout.read(std::string_view(frame), data_of<double>(numbers));
    if (!time) return py::none();
    return py::make_tuple(numbers, *time);
  }

  std::shared_ptr<const HandshakeMessage> handshake;
  std::shared_ptr<SensorLayout> shared;
  SensorLayout& layout;
  py::object values;
  double* data;
  py::object empty = py::module_::import("numpy").attr("empty");
};

// A ControlLayout with the arrays it reads Controls into.
struct ControlArrays {
  explicit ControlArrays(const py::bytes& handshake)
      : layout(handshake_from(handshake)),
        values(zeros(layout.size(), "float64")),
        values_set(zeros(layout.objects().size(), "bool")),
        events_set(zeros(layout.event_count(), "bool")),
        events_on(zeros(layout.event_count(), "bool")),
        targets{data_of<double>(values), data_of<std::uint8_t>(values_set), data_of<std::uint8_t>(events_set),
                data_of<std::uint8_t>(events_on)} {}

  std::uint32_t read(const Request& request) const {
    const auto* control = std::get_if<ControlMessage>(&request.message());
    if (control == nullptr) {
      throw ProtocolError(ErrorCode::UnexpectedMessage,
                          "expected Control but got " + std::string(to_string(request.type())));
    }
    return layout.read(*control, targets);
  }

  ControlLayout layout;
  py::object values;
  py::object values_set;
  py::object events_set;
  py::object events_on;
  ControlTargets targets;
};

}  // namespace coupler::python
