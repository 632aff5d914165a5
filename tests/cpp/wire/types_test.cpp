// The protocol enums and constants every binding and codec reads: listed once, each with its unit or size.

#include <set>

#include <catch2/catch.hpp>

#include <coupler/wire/image_kinds.hpp>
#include <coupler/wire/types.hpp>

using coupler::ValueType;

TEST_CASE("kValueTypes lists every value type a peer may send, and nothing else", "[types]") {
  const std::set<ValueType> listed(coupler::kValueTypes.begin(), coupler::kValueTypes.end());
  CHECK(listed.size() == coupler::kValueTypes.size());
  for (int number = -1; number <= 300; ++number) {
    const auto type = static_cast<ValueType>(number);
    CHECK(coupler::is_known(type) == (listed.count(type) == 1));
  }
}

TEST_CASE("kMessageTypes and kErrorCodes list every member once, each with a name", "[types]") {
  std::set<int> messages, errors;
  for (const auto type : coupler::kMessageTypes) {
    messages.insert(static_cast<int>(type));
    CHECK(coupler::to_string(type) != "unknown");
  }
  for (const auto code : coupler::kErrorCodes) {
    errors.insert(static_cast<int>(code));
    CHECK(coupler::to_string(code) != "unknown");
  }
  CHECK(messages.size() == coupler::kMessageTypes.size());
  CHECK(errors.size() == coupler::kErrorCodes.size());
}

TEST_CASE("a value type's unit is the SI unit of every number it carries", "[types]") {
  CHECK(coupler::unit(ValueType::Angle) == "rad");
  CHECK(coupler::unit(ValueType::AngularVelocity3D) == "rad/s");
  CHECK(coupler::unit(ValueType::AngularAcceleration3D) == "rad/s^2");
  CHECK(coupler::unit(ValueType::Torque1D) == "N m");
  CHECK(coupler::unit(ValueType::Force3D) == "N");
  CHECK(coupler::unit(ValueType::LinearPosition) == "m");
  CHECK(coupler::unit(ValueType::Velocity3D) == "m/s");
  CHECK(coupler::unit(ValueType::Acceleration3D) == "m/s^2");
  CHECK(coupler::unit(ValueType::MocapPosition) == "m");
}

TEST_CASE("a value type that fixes no unit has none", "[types]") {
  for (const auto type : {ValueType::Activated, ValueType::Multiple, ValueType::ActuatorInput, ValueType::Number,
                          ValueType::MocapQuaternion}) {
    CHECK(coupler::unit(type).empty());
  }
}

TEST_CASE("every image kind has a pixel size, and an unknown kind none", "[types]") {
  CHECK(coupler::image_bytes_per_pixel("rgb") == 3);
  CHECK(coupler::image_bytes_per_pixel("depth") == 4);
  CHECK(coupler::image_bytes_per_pixel("segmentation") == 4);
  CHECK(coupler::image_bytes_per_pixel("infrared") == 0);
  for (const auto kind : coupler::kImageKinds) CHECK(coupler::image_bytes_per_pixel(kind) > 0);
}
