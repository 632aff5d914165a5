// coupler._native.WorldSession: coupler::WorldSession over a bound coupler._native.Session, for
// coupler.controller.WorldSession, and read_world_answer, its reading of an answer for code that holds only the
// frame. Waits release the GIL; the answer's arrays are read-only NumPy views that hold what they point into (the
// decoded answer, the mapped ring).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/controller/session.hpp>
#include <coupler/controller/world_session.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/codec.hpp>

#include "bindings.hpp"
#include "image_requests_of.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A read-only array of `shape` over `data`, keeping `holds` (and so `data`) alive while it lives.
template <typename T>
py::array view(const T* data, std::vector<py::ssize_t> shape, const py::object& holds) {
  static const std::max_align_t nothing{};
  if (data == nullptr) data = reinterpret_cast<const T*>(&nothing);  // an empty array: NumPy would allocate for null
  std::vector<py::ssize_t> strides(shape.size(), sizeof(T));  // C order
  for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  py::array array(py::dtype::of<T>(), std::move(shape), std::move(strides), data, holds);
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return array;
}

py::ssize_t size(std::size_t n) { return static_cast<py::ssize_t>(n); }

py::array stack_of(const WorldImageStack& stack, const py::object& holds) {
  const std::vector<py::ssize_t> pictures{size(stack.worlds.size), size(stack.height), size(stack.width)};
  if (stack.kind == "rgb") return view(stack.bytes.data, {pictures[0], pictures[1], pictures[2], 3}, holds);
  if (stack.kind == "depth") return view(reinterpret_cast<const float*>(stack.bytes.data), pictures, holds);
  return view(reinterpret_cast<const std::int32_t*>(stack.bytes.data), pictures, holds);
}

// (sensors (worlds, sensor_width), times, data (worlds, data_width), [(camera, kind, stack)], image worlds).
py::tuple arrays_of(const WorldAnswer& answer) {
  const py::object holds = py::capsule(new std::shared_ptr<const void>(answer.holds), [](void* held) {
    delete static_cast<std::shared_ptr<const void>*>(held);
  });
  const py::ssize_t worlds = size(answer.worlds);
  py::list stacks;
  py::array image_worlds = view<std::uint32_t>(nullptr, {0}, holds);
  for (const auto& [camera, images] : answer.images) {
    for (const std::optional<WorldImageStack>* stack : {&images.rgb, &images.depth, &images.segmentation}) {
      if (!*stack) continue;
      stacks.append(py::make_tuple(camera, (*stack)->kind, stack_of(**stack, holds)));
      image_worlds = view((*stack)->worlds.data, {size((*stack)->worlds.size)}, holds);
    }
  }
  return py::make_tuple(view(answer.sensors.data, {worlds, size(answer.sensor_width)}, holds),
                        view(answer.times.data, {worlds}, holds),
                        view(answer.data.data, {worlds, size(answer.data_width)}, holds), stacks, image_worlds);
}

// A frame's answer to a Control for every world, read and checked as WorldSession::receive reads it, by a reader
// that knows no handshake: as many worlds as the answer has times, and as many readings per world as its sensors
// divide into. None for a frame of another kind.
py::object read_world_answer(const py::bytes& frame, std::shared_ptr<const SharedRingReader> shared) {
  Message message = decode(std::string_view(frame));
  auto* sensors = std::get_if<SensorMessage>(&message);
  if (sensors == nullptr) return py::none();
  auto held = std::make_shared<const SensorMessage>(std::move(*sensors));
  const std::size_t worlds = held->world_times.size();
  const std::size_t readings = held->world_sensors_shared ? held->world_sensors_shared->length / sizeof(double)
                                                          : held->world_sensors.size();
  WorldAnswer answer = world_answer(*held, worlds, worlds == 0 ? 0 : readings / worlds, shared.get());
  answer.holds = std::make_shared<std::pair<std::shared_ptr<const SensorMessage>,
                                            std::shared_ptr<const SharedRingReader>>>(std::move(held),
                                                                                      std::move(shared));
  return arrays_of(answer);
}

}  // namespace

void bind_world_session(py::module_& module) {
  module.def("read_world_answer", &read_world_answer, py::arg("frame"), py::arg("shared") = nullptr,
             "coupler::world_answer of a frame: WorldSession.receive's arrays, or None for a frame that is not a "
             "SensorMessage. `shared`: the SharedRingReader its arrays in shared memory are read from. Raises "
             "ProtocolError for arrays that do not fit its worlds, an image of an unknown kind or whose bytes do not "
             "fill its pictures, or arrays in shared memory without `shared`.");
  py::class_<WorldSession>(module, "WorldSession",
                           "coupler::WorldSession over a coupler._native.Session (kept alive by it), for "
                           "coupler.controller.WorldSession. Waits release the GIL.")
      .def(py::init<Session&>(), py::arg("session"), py::keep_alive<1, 2>())
      .def_property_readonly("worlds", &WorldSession::worlds)
      .def_property_readonly("control_width", &WorldSession::control_width)
      .def_property_readonly("sensor_width", &WorldSession::sensor_width)
      .def(
          "send",
          [](WorldSession& w, const std::optional<Doubles>& controls, std::uint64_t steps,
             std::vector<std::uint32_t> resets, std::vector<double> qpos, std::vector<double> qvel,
             const py::object& images, std::vector<std::uint32_t> image_worlds) {
            WorldStep step;
            step.steps = steps;
            step.resets = std::move(resets);
            step.reset_qpos = std::move(qpos);
            step.reset_qvel = std::move(qvel);
            step.images = image_requests_of(images);
            step.image_worlds = std::move(image_worlds);
            const Span<double> values =
                controls ? Span<double>{controls->data(), static_cast<std::size_t>(controls->size())} : Span<double>{};
            py::gil_scoped_release released;
            w.send(values, step);
          },
          py::arg("controls"), py::arg("steps"), py::arg("resets"), py::arg("qpos"), py::arg("qvel"),
          py::arg("images"), py::arg("image_worlds"),
          "WorldSession::send: `controls` world after world (None: no world steps), `qpos`/`qvel` one reset world's "
          "after another, `images` ImageRequest values (or None).")
      .def(
          "receive",
          [](WorldSession& w) {
            const WorldAnswer* answer = nullptr;
            {
              py::gil_scoped_release released;
              answer = &w.receive();
            }
            return arrays_of(*answer);
          },
          "WorldSession::receive, as read-only arrays: (sensors (worlds, sensor_width), times, data (worlds, "
          "data_width), [(camera, kind, (worlds, H, W[, 3]) stack)], the worlds the stacks show).");
}

}  // namespace coupler::python
