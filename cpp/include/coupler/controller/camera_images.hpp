#pragma once
// Camera images for a controller (the "images" extension): views of the
// pixels a SensorMessage carries, without copying them.
//
//   const coupler::SensorReadings readings = session.step(controls, {{"overview", {"rgb", "depth"}}});
//   const coupler::CameraImages& picture = readings.images().at("overview");
//   const float* depth = picture.depth->pixels<float>();   // metres, row 0 the top of the picture
//
// Views point into the readings they came from: they stay valid as long as
// those readings live and are not moved from. Images that came through shared
// memory (the "shm" extension, at an ipc:// or inproc:// address) point into
// the mapped ring instead, no copy: the readings keep it mapped, and the
// pixels stay as sent until the server has sent `slots - 1` more answers
// with shared images (3 with its default of 4 buffers), to any client;
// session.shared_memory()->current(*image.shared) says whether they still are.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

// A contiguous run of values owned elsewhere.
template <class T>
struct Span {
  const T* data = nullptr;
  std::size_t size = 0;

  const T* begin() const noexcept { return data; }
  const T* end() const noexcept { return data + size; }
  const T& operator[](std::size_t i) const noexcept { return data[i]; }
};

// One image: "rgb" 3 uint8 per pixel, "depth" a float per pixel (m along the
// optical axis), "segmentation" an int32 per pixel (the geom id, -1: none);
// rows from the top of the picture down, pixels left to right.
struct ImageView {
  std::string kind;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  Span<std::uint8_t> bytes;

  // The pixels as values of T: std::uint8_t for rgb (3 per pixel), float for depth, std::int32_t for
  // segmentation. Throws coupler::Error when T is not this kind's type.
  template <class T>
  Span<T> pixels() const {
    check_type(sizeof(T), kind_of<T>());
    return {reinterpret_cast<const T*>(bytes.data), bytes.size / sizeof(T)};
  }

 private:
  template <class T>
  static const char* kind_of() {
    if constexpr (std::is_same_v<T, float>) return "depth";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "segmentation";
    else return "rgb";
  }
  void check_type(std::size_t size, const char* wanted) const;
};

// One camera's images of one state; a kind not asked for (or not due at its rate) is empty.
struct CameraImages {
  double time = 0.0;  // s, the simulated time they show
  std::optional<ImageView> rgb;
  std::optional<ImageView> depth;
  std::optional<ImageView> segmentation;
};

// The images of a SensorMessage by camera, as views of its bytes, or of `shared` for those that lie there.
// Throws coupler::Error for an image of an unknown kind or whose size does not match its data, and one in
// shared memory without `shared` or outside it (SharedRingReader::view).
std::map<std::string, CameraImages> camera_images(const std::vector<Image>& images,
                                                  const SharedRingReader* shared = nullptr);

}  // namespace coupler
