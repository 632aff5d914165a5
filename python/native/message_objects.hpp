#pragma once
// coupler::Message values as the coupler.wire.messages dataclasses, and back
// (python/native/message_objects.cpp, by the table in message_fields.hpp).

#include <optional>

#include <pybind11/pybind11.h>

#include <coupler/wire/messages.hpp>

namespace coupler::python {

// Raises TypeError for an object that is not a coupler message, coupler.Error
// for a field of the wrong type or out of its range.
Message to_message(const pybind11::handle& message);

pybind11::object to_python(const Message& message);
// A SharedSlice, or None.
pybind11::object to_python(const std::optional<SharedSlice>& slice);

// (class name, [(field, annotation, default), ...]) per message struct, each after the structs its fields
// name; enums' defaults as their numbers (a control field's as its wire name).
pybind11::list message_fields();
// ObjectDescription::types_of_joint of an ObjectDescription dataclass.
pybind11::object types_of_joint(const pybind11::handle& description, std::size_t joint);
// (Python member, wire field) of each ControlField.
pybind11::list control_field_names();

}  // namespace coupler::python
