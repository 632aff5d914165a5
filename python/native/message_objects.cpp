// coupler::Message values as the coupler.wire.messages dataclasses and back,
// field by field as message_fields.hpp lists them; and that table itself,
// from which coupler.wire.messages builds the dataclasses.

#include "message_objects.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include <coupler/wire/error.hpp>

#include "message_fields.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// Which list of a control object carries its values: the Python member's name and the wire field's.
struct ControlFieldName {
  ControlField field;
  const char* member;
  const char* wire;
};
constexpr ControlFieldName kControlFields[] = {{ControlField::Values, "VALUES", "values"},
                                               {ControlField::Angles, "ANGLES", "angles"},
                                               {ControlField::AngularVelocities, "ANGULAR_VELOCITIES",
                                                "angularVelocities"},
                                               {ControlField::Torques, "TORQUES", "torques"}};

template <class T, class = void>
struct IsDescribed : std::false_type {};
template <class T>
struct IsDescribed<T, std::void_t<decltype(Described<T>::fields)>> : std::true_type {};

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
struct IsMap : std::false_type {};
template <class T>
struct IsMap<std::map<std::string, T>> : std::true_type {};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// Numbers, bools and strings, which pybind11 converts whole, containers of them included.
template <class T>
constexpr bool kScalar = std::is_arithmetic_v<T> || std::is_same_v<T, std::string>;

// The enum members and classes of coupler.wire.messages, looked up at the first message converted (that
// module builds its classes from this file's table, so it is not complete before). Leaked on purpose:
// releasing Python objects from a static destructor, after the interpreter has finalized, would crash at exit.
struct Vocabulary {
  py::module_ module = py::module_::import("coupler.wire.messages");
  std::map<int, py::object> value_types;
  std::map<int, py::object> error_codes;
  std::map<ControlField, py::object> control_fields;
  std::map<std::string, ControlField> control_field_names;

  Vocabulary() {
    for (py::handle member : module.attr("ValueType")) value_types[member.cast<int>()] = py::reinterpret_borrow<py::object>(member);
    for (py::handle member : module.attr("ErrorCode")) error_codes[member.cast<int>()] = py::reinterpret_borrow<py::object>(member);
    for (const ControlFieldName& name : kControlFields) {
      control_fields[name.field] = module.attr("ControlField").attr(name.member);
      control_field_names[name.wire] = name.field;
    }
  }
};

const Vocabulary& vocabulary() {
  static const Vocabulary* const known = new Vocabulary();
  return *known;
}

template <class T>
const py::object& class_of() {
  static const py::object* const known = new py::object(vocabulary().module.attr(Described<T>::name));
  return *known;
}

// Calls f(field) for every field of struct T.
template <class T, class F>
void for_each_field(F&& f) {
  std::apply([&](const auto&... fields) { (f(fields), ...); }, Described<T>::fields);
}

// ---- C++ -> Python

py::object to_py(ValueType type, Shape) {
  // The decoder takes only the schema's types, which ValueType names; an int keeps any other.
  const auto& known = vocabulary().value_types;
  const auto member = known.find(static_cast<int>(type));
  return member == known.end() ? py::int_(static_cast<int>(type)) : member->second;
}

py::object to_py(ControlField field, Shape) { return vocabulary().control_fields.at(field); }

py::object to_py(const std::string& text, Shape shape) {
  return shape == Shape::Bytes ? py::object(py::bytes(text)) : py::object(py::str(text));
}

template <class T>
py::object to_py(const T& value, Shape shape) {
  if constexpr (std::is_same_v<T, bool>) {
    return py::bool_(value);
  } else if constexpr (std::is_floating_point_v<T>) {
    return py::float_(value);
  } else if constexpr (std::is_integral_v<T>) {
    if (shape == Shape::ErrorCode) {
      // A code this side does not know (a newer peer's) stays a plain int.
      const auto& known = vocabulary().error_codes;
      const auto member = known.find(static_cast<int>(value));
      if (member != known.end()) return member->second;
    }
    return py::int_(value);
  } else if constexpr (IsOptional<T>::value) {
    return value ? to_py(*value, shape) : py::none();
  } else if constexpr (IsMap<T>::value) {
    py::dict out;
    for (const auto& [key, item] : value) out[py::str(key)] = to_py(item, shape);
    return out;
  } else if constexpr (IsVector<T>::value) {
    if constexpr (std::is_same_v<T, std::vector<double>>) {
      if (shape == Shape::Tuples) {
        py::tuple out(value.size());
        for (std::size_t i = 0; i < value.size(); ++i) out[i] = py::float_(value[i]);
        return out;
      }
    }
    if constexpr (std::is_same_v<T, std::vector<CameraDescription>>) {
      if (shape == Shape::ByName) {
        py::dict out;
        for (const auto& item : value) out[py::str(item.name)] = to_py(item, Shape::Plain);
        return out;
      }
    }
    py::list out(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) out[i] = to_py(value[i], shape);
    return out;
  } else {
    static_assert(IsDescribed<T>::value, "a message struct without a row in message_fields.hpp");
    // Positionally, in the table's order, which is the dataclass's: faster than by keyword.
    py::tuple fields(std::tuple_size_v<decltype(Described<T>::fields)>);
    std::size_t i = 0;
    for_each_field<T>([&](const auto& f) { fields[i++] = to_py(value.*(f.member), f.shape); });
    return class_of<T>()(*fields);
  }
}

// ---- Python -> C++

void from_py(const py::handle& in, ValueType& out, Shape) { out = static_cast<ValueType>(in.cast<int>()); }

void from_py(const py::handle& in, ControlField& out, Shape) {
  const auto& names = vocabulary().control_field_names;
  const auto spelled = names.find(in.attr("value").cast<std::string>());
  if (spelled == names.end()) throw py::value_error("not a ControlField");
  out = spelled->second;
}

void from_py(const py::handle& in, std::string& out, Shape shape) {
  // Pixels a client resolved out of shared memory are an array, not bytes: their bytes in C order, however the
  // array is laid out.
  if (shape == Shape::Bytes && !py::isinstance<py::bytes>(in) && py::isinstance<py::buffer>(in)) {
    out = py::memoryview(py::reinterpret_borrow<py::object>(in)).attr("tobytes")().cast<std::string>();
    return;
  }
  out = in.cast<std::string>();
}

// A dict, not whatever dict() would make of another object.
py::dict as_dict(const py::handle& in) {
  if (!py::isinstance<py::dict>(in)) throw py::cast_error("not a dict");
  return py::reinterpret_borrow<py::dict>(in);
}

void after_reading(Image& image) {
  // What is sent of pixels in shared memory is where they lie.
  if (image.shared) image.data.clear();
}
template <class T>
void after_reading(T&) {}

template <class T>
void from_py(const py::handle& in, T& out, Shape shape) {
  if constexpr (kScalar<T>) {
    out = in.cast<T>();
  } else if constexpr (IsOptional<T>::value) {
    if (in.is_none()) {
      out.reset();
    } else {
      from_py(in, out.emplace(), shape);
    }
  } else if constexpr (IsMap<T>::value) {
    if constexpr (kScalar<typename T::mapped_type>) {
      out = in.cast<T>();
    } else {
      out.clear();
      for (auto [key, item] : as_dict(in)) from_py(item, out[py::cast<std::string>(key)], shape);
    }
  } else if constexpr (IsVector<T>::value) {
    using Item = typename T::value_type;
    if constexpr (kScalar<Item> || std::is_same_v<Item, std::vector<double>>) {
      out = in.cast<T>();
    } else {
      const py::object items = shape == Shape::ByName ? as_dict(in).attr("values")()
                                                      : py::reinterpret_borrow<py::object>(in);
      if (!py::isinstance<py::iterable>(items)) throw py::cast_error("not a list");
      out.clear();
      for (py::handle item : items) from_py(item, out.emplace_back(), shape == Shape::ByName ? Shape::Plain : shape);
    }
  } else {
    static_assert(IsDescribed<T>::value, "a message struct without a row in message_fields.hpp");
    for_each_field<T>([&](const auto& f) { from_py(in.attr(f.name), out.*(f.member), f.shape); });
    after_reading(out);
  }
}

// The kinds a message may be, the most frequent first.
using MessageKinds = std::tuple<ControlMessage, SensorMessage, SensorRequestMessage, ResetMessage,
                                HandshakeInitMessage, HandshakeMessage, ErrorMessage>;

// Reads `in` into `out` as a Kind when it is one.
template <class Kind>
bool read_as(const py::handle& in, Message& out) {
  if (!py::isinstance(in, class_of<Kind>())) return false;
  from_py(in, out.emplace<Kind>(), Shape::Plain);
  return true;
}

template <class... Kinds>
Message message_of(const py::handle& in, std::tuple<Kinds...>*) {
  Message out;
  // The first kind `in` is an instance of: the fold stops there.
  if (!(read_as<Kinds>(in, out) || ...)) {
    throw py::type_error(py::str(in.get_type().attr("__name__")).cast<std::string>() + " is not a coupler message");
  }
  return out;
}

// ---- The table, for coupler.wire.messages

// The Python annotation of a field: what to_py makes of it.
template <class T>
std::string annotation(Shape shape) {
  if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "float";
  } else if constexpr (std::is_integral_v<T>) {
    return shape == Shape::ErrorCode ? "ErrorCode | int" : "int";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return shape == Shape::Bytes ? "bytes" : "str";
  } else if constexpr (std::is_same_v<T, ValueType>) {
    return "ValueType";
  } else if constexpr (std::is_same_v<T, ControlField>) {
    return "ControlField";
  } else if constexpr (IsOptional<T>::value) {
    return annotation<typename T::value_type>(shape) + " | None";
  } else if constexpr (IsMap<T>::value) {
    return "dict[str, " + annotation<typename T::mapped_type>(shape) + "]";
  } else if constexpr (IsVector<T>::value) {
    if (std::is_same_v<T, std::vector<double>> && shape == Shape::Tuples) return "tuple[float, ...]";
    if (shape == Shape::ByName) return "dict[str, " + annotation<typename T::value_type>(Shape::Plain) + "]";
    return "list[" + annotation<typename T::value_type>(shape) + "]";
  } else {
    return Described<T>::name;
  }
}

// A field's default, a default-made struct's value, without the enums this table's reader has yet to make:
// a value type and an error code as their numbers, a control field as its wire name.
template <class T>
py::object default_of(const T& value, Shape shape) {
  if constexpr (std::is_same_v<T, ValueType>) {
    return py::int_(static_cast<int>(value));
  } else if constexpr (std::is_same_v<T, ControlField>) {
    for (const ControlFieldName& name : kControlFields) {
      if (name.field == value) return py::str(name.wire);
    }
    throw Error("a control field without a name");
  } else if constexpr (IsOptional<T>::value) {
    if (value) throw Error("an optional field set by default");
    return py::none();
  } else if constexpr (IsMap<T>::value || IsVector<T>::value) {
    if (!value.empty()) throw Error("a container field filled by default");
    return shape == Shape::ByName || IsMap<T>::value ? py::object(py::dict()) : py::object(py::list());
  } else {
    return to_py(value, shape == Shape::ErrorCode ? Shape::Plain : shape);
  }
}

template <class T>
py::list fields_of() {
  const T made{};
  py::list out;
  for_each_field<T>([&](const auto& f) {
    using Member = std::remove_cv_t<std::remove_reference_t<decltype(made.*(f.member))>>;
    out.append(py::make_tuple(f.name, annotation<Member>(f.shape), default_of(made.*(f.member), f.shape)));
  });
  return out;
}

template <class... Structs>
py::list table(std::tuple<Structs...>*) {
  py::list out;
  (out.append(py::make_tuple(Described<Structs>::name, fields_of<Structs>())), ...);
  return out;
}

}  // namespace

Message to_message(const py::handle& in) {
  try {
    return message_of(in, static_cast<MessageKinds*>(nullptr));
  } catch (const py::cast_error&) {
    throw Error("cannot encode " + py::str(in.get_type().attr("__name__")).cast<std::string>() +
                ": a field holds a value of the wrong type or out of its range");
  }
}

py::object to_python(const Message& message) {
  return std::visit([](const auto& typed) { return to_py(typed, Shape::Plain); }, message);
}

py::object to_python(const std::optional<SharedSlice>& slice) { return to_py(slice, Shape::Plain); }

py::list message_fields() { return table(static_cast<DescribedStructs*>(nullptr)); }

py::object types_of_joint(const py::handle& description, std::size_t joint) {
  ObjectDescription object;
  try {
    from_py(description, object, Shape::Plain);
  } catch (const py::cast_error&) {
    throw Error("not an ObjectDescription: a field holds a value of the wrong type or out of its range");
  }
  return to_py(object.types_of_joint(joint), Shape::Plain);
}

py::list control_field_names() {
  py::list out;
  for (const ControlFieldName& name : kControlFields) out.append(py::make_tuple(name.member, name.wire));
  return out;
}

}  // namespace coupler::python
