// The protocol's enums, constants and message fields, defined once in coupler/wire/types.hpp, messages.hpp
// and image_kinds.hpp, exported for coupler.wire.messages, which builds its enums and dataclasses from them.

#include <cctype>
#include <string>
#include <utility>
#include <string_view>

#include <coupler/wire/image_kinds.hpp>
#include <coupler/wire/messages.hpp>
#include <coupler/wire/types.hpp>

#include "bindings.hpp"
#include "message_objects.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// "AngularVelocity1D" -> "ANGULAR_VELOCITY_1D": a member's name as Python spells enum members.
std::string python_member(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    const auto before = static_cast<unsigned char>(i > 0 ? name[i - 1] : ' ');
    if ((std::isupper(c) && std::islower(before)) || (std::isdigit(c) && std::isalpha(before))) out += '_';
    out += static_cast<char>(std::toupper(c));
  }
  return out;
}

// (name, number) pairs in wire order, as Enum's functional API takes them.
template <typename Enum, std::size_t N>
py::list members(const std::array<Enum, N>& all) {
  py::list out;
  for (const Enum value : all) out.append(py::make_tuple(python_member(to_string(value)), static_cast<int>(value)));
  return out;
}

}  // namespace

void bind_protocol(py::module_& module) {
  py::module_ protocol = module.def_submodule(
      "protocol", "coupler/wire/types.hpp, messages.hpp, image_kinds.hpp: the protocol's enums, constants and message fields.");
  protocol.attr("version") = kProtocolVersion;
  protocol.attr("message_types") = members(kMessageTypes);
  protocol.attr("value_types") = members(kValueTypes);
  protocol.attr("error_codes") = members(kErrorCodes);
  py::dict widths, units;
  for (const ValueType type : kValueTypes) {
    widths[py::int_(static_cast<int>(type))] = width(type);
    units[py::int_(static_cast<int>(type))] = std::string(unit(type));
  }
  protocol.attr("value_type_widths") = widths;
  protocol.attr("value_type_units") = units;
  // Keyed by the name Python's EXTENSION_ constants end in.
  py::dict extensions;
  for (const auto& [name, extension] : {std::pair{"STEPS", kExtensionSteps}, {"GOODBYE", kExtensionGoodbye},
                                        {"RANGES", kExtensionRanges}, {"VALUE_TYPES", kExtensionValueTypes},
                                        {"WORLDS", kExtensionWorlds}, {"MOCAP", kExtensionMocap},
                                        {"KEYFRAMES", kExtensionKeyframes}, {"IMAGES", kExtensionImages},
                                        {"SHARED_MEMORY", kExtensionSharedMemory}}) {
    extensions[name] = extension;
  }
  protocol.attr("extensions") = extensions;
  py::tuple kinds(kImageKinds.size());
  py::dict bytes_per_pixel;
  for (std::size_t i = 0; i < kImageKinds.size(); ++i) {
    kinds[i] = std::string(kImageKinds[i]);
    bytes_per_pixel[py::str(std::string(kImageKinds[i]))] = image_bytes_per_pixel(kImageKinds[i]);
  }
  protocol.attr("image_kinds") = kinds;
  protocol.attr("image_bytes_per_pixel") = bytes_per_pixel;
  protocol.attr("control_fields") = control_field_names();
  protocol.attr("message_fields") = message_fields();
  protocol.def("types_of_joint", &types_of_joint, py::arg("description"), py::arg("joint"),
               "ObjectDescription::types_of_joint: the types of joint sensor `joint`'s readings.");
}

}  // namespace coupler::python
