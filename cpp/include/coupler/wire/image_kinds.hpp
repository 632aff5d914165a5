#pragma once
// coupler extension "images": the kinds of image a camera renders, and how many bytes a pixel of each has.

#include <array>
#include <cstddef>
#include <string_view>

namespace coupler {

// "rgb": 3 uint8 per pixel; "depth": a float32 per pixel, metres along the optical axis; "segmentation": an
// int32 per pixel, the geom seen there (-1: none). Rows run from the top of the picture down, little-endian.
inline constexpr std::array<std::string_view, 3> kImageKinds = {"rgb", "depth", "segmentation"};

// The bytes of one pixel of `kind`; 0 for a kind that is not one of kImageKinds.
constexpr std::size_t image_bytes_per_pixel(std::string_view kind) noexcept {
  if (kind == "rgb") return 3;
  if (kind == "depth" || kind == "segmentation") return 4;
  return 0;
}

}  // namespace coupler
