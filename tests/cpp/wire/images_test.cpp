// The "images" extension in the codec, and the views the controller library reads images through.

#include <catch2/catch.hpp>

#include <cstring>

#include <coupler/controller/camera_images.hpp>
#include <coupler/wire/codec.hpp>

using namespace coupler;

namespace {

Image depth_image(std::vector<float> metres, std::uint32_t width, std::uint32_t height) {
  Image image{"overview", "depth", width, height, 0.5, std::string(metres.size() * sizeof(float), '\0')};
  std::memcpy(image.data.data(), metres.data(), image.data.size());
  return image;
}

}  // namespace

TEST_CASE("cameras and image requests survive encode and decode") {
  HandshakeMessage handshake;
  handshake.cameras.push_back({"overview", 320, 240, {"rgb", "depth"}, 257.3, 257.3, 159.5, 119.5, 0.02, 100.0,
                               "world", {0.1, -0.7, 1.45}, {0.94, 0.34, 0.0, 0.0}});
  handshake.max_image_width = 4096;
  handshake.max_image_height = 4096;
  const auto read = decode_as<HandshakeMessage>(encode(handshake));
  REQUIRE(read.cameras.size() == 1);
  CHECK(read.cameras[0].name == "overview");
  CHECK(read.cameras[0].kinds == std::vector<std::string>{"rgb", "depth"});
  CHECK(read.cameras[0].cx == 159.5);
  CHECK(read.cameras[0].quaternion == std::vector<double>{0.94, 0.34, 0.0, 0.0});
  CHECK(read.max_image_height == 4096);

  ControlMessage control;
  control.images = {{"overview", {"rgb"}, 3u}, {"wrist", {"depth"}}};
  const auto asked = decode_as<ControlMessage>(encode(control));
  REQUIRE(asked.images.size() == 2);
  CHECK(asked.images[0].every == 3u);
  CHECK_FALSE(asked.images[1].every.has_value());
  CHECK(decode_as<SensorRequestMessage>(encode(SensorRequestMessage{{{"overview", {"segmentation"}}}})).images[0].kinds ==
        std::vector<std::string>{"segmentation"});
}

TEST_CASE("image fields appended to a sensor frame make the frame of the message with those images") {
  SensorMessage message;
  message.simulated_time = 0.5;
  const std::string plain = encode(message);
  message.images = {depth_image({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, 3, 2)};
  CHECK(plain + encode_image_fields(message.images) == encode(message));
}

TEST_CASE("an image is read as a view of the message's bytes, typed by its kind") {
  const std::vector<Image> images{depth_image({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, 3, 2)};
  const std::map<std::string, CameraImages> read = camera_images(images);
  const CameraImages& overview = read.at("overview");
  REQUIRE(overview.depth.has_value());
  CHECK_FALSE(overview.rgb.has_value());
  const Span<float> depth = overview.depth->pixels<float>();
  CHECK(depth.size == 6);
  CHECK(depth[3] == 4.0f);
  CHECK(static_cast<const void*>(depth.data) == static_cast<const void*>(images[0].data.data()));
  CHECK_THROWS_WITH(overview.depth->pixels<std::int32_t>(), Catch::Contains("not of the type asked for"));
}

TEST_CASE("an image whose data does not fill its size is refused naming both") {
  std::vector<Image> images{depth_image({1.0f, 2.0f}, 3, 2)};
  CHECK_THROWS_WITH(camera_images(images), Catch::Contains("has 8 bytes; 3x2 takes 24"));
  images[0].kind = "infrared";
  CHECK_THROWS_WITH(camera_images(images), Catch::Contains("unknown kind 'infrared'"));
}
