// The "shm" extension's ring (coupler/transport/shared_ring.hpp) for
// coupler.serve and coupler.controller: the server writes rendered images
// into it and encodes where they lie; a client views them as NumPy arrays of
// the mapped memory, without a copy.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/transport/shared_ring.hpp>
#include <coupler/transport/world_answer.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

#include "bindings.hpp"
#include "shared_view.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// Each payload starts on a cache line, so a float32 or int32 image is aligned for its type.
constexpr std::size_t kAlignment = 64;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

// The images field of a SensorMessage whose images' pixels lie in one buffer of `ring`, from (camera, kind,
// width, height, time, C-contiguous array) each; None when they take less than the ring's min_bytes (a copy is
// cheaper than a mapping) or do not fit one buffer, as for encode_world_answer.
py::object encode_shared_image_fields(const py::list& images, SharedRingWriter& ring) {
  std::vector<py::buffer_info> pixels;
  pixels.reserve(images.size());
  std::size_t sum = 0;
  std::size_t total = 0;
  for (py::handle image : images) {
    pixels.push_back(image.cast<py::tuple>()[5].cast<py::buffer>().request());
    const auto length = static_cast<std::size_t>(pixels.back().size * pixels.back().itemsize);
    sum += length;
    total = aligned(total) + length;
  }
  if (sum < ring.announced().min_bytes || total > ring.announced().slot_bytes) return py::none();
  std::vector<Image> out;
  out.reserve(images.size());
  {
    // The copy into the buffer runs without the GIL: other threads (the renderer) go on meanwhile.
    const SharedRingWriter::Claim claim = ring.claim();
    std::size_t offset = 0;
    for (std::size_t i = 0; i < pixels.size(); ++i) {
      const py::tuple t = images[i].cast<py::tuple>();
      const auto length = static_cast<std::size_t>(pixels[i].size * pixels[i].itemsize);
      offset = aligned(offset);
      {
        py::gil_scoped_release released;
        std::memcpy(claim.data + offset, pixels[i].ptr, length);
      }
      out.push_back({t[0].cast<std::string>(), t[1].cast<std::string>(), t[2].cast<std::uint32_t>(),
                     t[3].cast<std::uint32_t>(), t[4].cast<double>(), std::string(),
                     SharedSlice{claim.slot, claim.sequence, offset, length}});
      offset += length;
    }
    ring.publish(claim);
  }
  return py::bytes(encode_image_fields(out));
}

// The SensorMessage answering a Control for every world, by the one encoder every serving path uses.
py::bytes encode_world_answer_of(const py::buffer& sensors, const py::buffer& times, const py::buffer& data,
                                 const py::list& images, const std::vector<std::uint32_t>& image_worlds,
                                 SharedRingWriter* ring) {
  const auto doubles = [](const py::buffer_info& info) {
    if (info.itemsize != sizeof(double) || info.format != py::format_descriptor<double>::format()) {
      throw py::type_error("expected a contiguous array of float64");
    }
    return static_cast<const double*>(info.ptr);
  };
  const py::buffer_info sensor_info = sensors.request();
  const py::buffer_info time_info = times.request();
  const py::buffer_info data_info = data.request();
  WorldAnswerArrays arrays;
  arrays.sensors = doubles(sensor_info);
  arrays.sensor_count = static_cast<std::size_t>(sensor_info.size);
  arrays.times = doubles(time_info);
  arrays.world_count = static_cast<std::size_t>(time_info.size);
  arrays.data = doubles(data_info);
  arrays.data_count = static_cast<std::size_t>(data_info.size);
  std::vector<py::buffer_info> pixels;
  std::vector<WorldImagesToSend> stacks;
  pixels.reserve(images.size());
  stacks.reserve(images.size());
  for (py::handle image : images) {
    const py::tuple t = image.cast<py::tuple>();
    pixels.push_back(t[4].cast<py::buffer>().request());
    stacks.push_back({t[0].cast<std::string>(), t[1].cast<std::string>(), t[2].cast<std::uint32_t>(),
                      t[3].cast<std::uint32_t>(), pixels.back().ptr,
                      static_cast<std::size_t>(pixels.back().size * pixels.back().itemsize)});
  }
  std::string frame;
  {
    py::gil_scoped_release released;  // the arrays are the caller's, held by it meanwhile
    frame = encode_world_answer(arrays, stacks, image_worlds, ring);
  }
  return py::bytes(frame);
}

SharedMemoryRing announced_ring(const py::handle& ring) {
  return {ring.attr("path").cast<std::string>(), ring.attr("slots").cast<std::uint32_t>(),
          ring.attr("slot_bytes").cast<std::uint64_t>(), ring.attr("data_offset").cast<std::uint64_t>(),
          ring.attr("min_bytes").cast<std::uint64_t>()};
}

SharedSlice slice_of(const py::handle& slice) {
  return {slice.attr("slot").cast<std::uint32_t>(), slice.attr("sequence").cast<std::uint64_t>(),
          slice.attr("offset").cast<std::uint64_t>(), slice.attr("length").cast<std::uint64_t>()};
}

}  // namespace

py::array_t<std::uint8_t> shared_view(const std::shared_ptr<const SharedRingReader>& ring, const py::handle& slice) {
  const SharedSlice where = slice_of(slice);
  const std::uint8_t* bytes = ring->view(where);
  // The array keeps the mapping alive; it is read-only, as the mapping is.
  py::array_t<std::uint8_t> out({static_cast<py::ssize_t>(where.length)}, {1}, bytes,
                                py::cast(std::const_pointer_cast<SharedRingReader>(ring)));
  py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return out;
}

void bind_shared_ring(py::module_& module) {
  py::class_<SharedRingWriter>(module, "SharedRingWriter",
                               "The server's side of the \"shm\" extension's ring: `slots` buffers of `slot_bytes` "
                               "bytes in a memfd of mode 0600; answers whose payloads reach `min_bytes` use it.")
      .def(py::init<std::uint32_t, std::uint64_t, std::uint64_t>(), py::arg("slots"), py::arg("slot_bytes"),
           py::arg("min_bytes"))
      .def_property_readonly("path", [](const SharedRingWriter& r) { return r.announced().path; })
      .def_property_readonly("slots", [](const SharedRingWriter& r) { return r.announced().slots; })
      .def_property_readonly("slot_bytes", [](const SharedRingWriter& r) { return r.announced().slot_bytes; })
      .def_property_readonly("data_offset", [](const SharedRingWriter& r) { return r.announced().data_offset; })
      .def_property_readonly("min_bytes", [](const SharedRingWriter& r) { return r.announced().min_bytes; });

  py::class_<SharedRingReader, std::shared_ptr<SharedRingReader>>(
      module, "SharedRingReader",
      "A client's mapping of the ring a handshake announced (a coupler.wire.messages.SharedMemoryRing); "
      "coupler.Error in one line when it cannot be mapped. A Session's is its `shared_images`.")
      .def(py::init([](const py::handle& ring) { return std::make_shared<SharedRingReader>(announced_ring(ring)); }),
           py::arg("ring"))
      .def(
          "view",
          [](const std::shared_ptr<SharedRingReader>& self, const py::handle& slice) {
            return shared_view(self, slice);
          },
          py::arg("slice"),
          "The bytes of a coupler.wire.messages.SharedSlice as a read-only uint8 array of the mapped memory "
          "(no copy), which keeps the mapping alive; coupler.Error in one line for a buffer or range outside the "
          "ring, or a buffer since overwritten.")
      .def(
          "current", [](const SharedRingReader& self, const py::handle& slice) { return self.current(slice_of(slice)); },
          py::arg("slice"), "Whether the slice's buffer still holds what it held when the slice was sent.")
      .def(
          "still_valid",
          [](const SharedRingReader& self, const py::handle& image) {
            const py::object shared = image.attr("shared");
            return shared.is_none() || self.current(slice_of(shared));
          },
          py::arg("image"),
          "Whether the pixels of a coupler.wire.messages.Image are still those the server sent (always, for one "
          "not in shared memory).");

  module.def("on_this_host", &on_this_host, py::arg("address"),
             "coupler::on_this_host: whether a peer at `address` is on this host for certain (ipc:// and inproc:// "
             "only, never tcp://), where shared memory is offered and mapped.");
  module.def("encode_shared_image_fields", &encode_shared_image_fields, py::arg("images"), py::arg("ring"),
             "As encode_image_fields, with the pixels written into one buffer of `ring` (a SharedRingWriter) and "
             "the images saying where; None when together they take less than its min_bytes or do not fit one "
             "buffer.");
  module.def("encode_world_answer", &encode_world_answer_of, py::arg("sensors"), py::arg("times"),
             py::arg("data"), py::arg("images"), py::arg("image_worlds"), py::arg("ring") = nullptr,
             "The SensorMessage frame answering a Control for every world, from float64 arrays and the image stacks "
             "((camera, kind, width, height, C-contiguous array of every world's image) each) of the worlds "
             "image_worlds lists. With a SharedRingWriter `ring`, the arrays and images go into one buffer of it and "
             "the frame says where, when together they take its min_bytes or more and fit one buffer.");
}

}  // namespace coupler::python
