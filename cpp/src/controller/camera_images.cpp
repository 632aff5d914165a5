#include <coupler/controller/camera_images.hpp>

#include <coupler/wire/error.hpp>
#include <coupler/wire/image_kinds.hpp>
#include <coupler/wire/peer_text.hpp>

namespace coupler {
namespace {

std::size_t bytes_per_pixel(const Image& image) {
  if (const std::size_t bytes = image_bytes_per_pixel(image.kind)) return bytes;
  throw Error("an image of camera '" + shown_peer_text(image.camera) + "' is of unknown kind '" +
              shown_peer_text(image.kind) + "'; the kinds are rgb, depth, segmentation");
}

// The bytes of `image`: its data, or where it lies in `shared`.
Span<std::uint8_t> pixels_of(const Image& image, const SharedRingReader* shared) {
  if (!image.shared) return {reinterpret_cast<const std::uint8_t*>(image.data.data()), image.data.size()};
  if (shared == nullptr) {
    throw Error("the " + shown_peer_text(image.kind) + " image of camera '" + shown_peer_text(image.camera) +
                "' lies in shared memory this session did not map");
  }
  return {shared->view(*image.shared), static_cast<std::size_t>(image.shared->length)};
}

}  // namespace

void ImageView::check_type(std::size_t size, const char* wanted) const {
  const bool bytes_of_rgb = kind == "rgb" && size == 1;
  if (kind != wanted || (kind == "rgb" && !bytes_of_rgb)) {
    throw Error("a " + kind + " image's pixels are not of the type asked for (" + wanted + "'s)");
  }
}

std::map<std::string, CameraImages> camera_images(const std::vector<Image>& images, const SharedRingReader* shared) {
  std::map<std::string, CameraImages> out;
  for (const Image& image : images) {
    const std::size_t expected = static_cast<std::size_t>(image.width) * image.height * bytes_per_pixel(image);
    const Span<std::uint8_t> bytes = pixels_of(image, shared);
    if (bytes.size != expected) {
      throw Error("the " + image.kind + " image of camera '" + shown_peer_text(image.camera) + "' has " +
                  std::to_string(bytes.size) + " bytes; " + std::to_string(image.width) + "x" +
                  std::to_string(image.height) + " takes " + std::to_string(expected));
    }
    CameraImages& camera = out[image.camera];
    camera.time = image.time;
    ImageView view{image.kind, image.width, image.height, bytes};
    if (image.kind == "rgb") camera.rgb = view;
    if (image.kind == "depth") camera.depth = view;
    if (image.kind == "segmentation") camera.segmentation = view;
  }
  return out;
}

}  // namespace coupler
