// coupler._native.WorldSteps: the worlds of a batched server, stepped in C++
// on persistent threads by coupler._native.WorldHotPath (bound here too), the
// GIL released meanwhile (coupler.mujoco.native_world_steps builds it from the
// worlds' parts).

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coupler/serve/world_hot_path.hpp>
#include <coupler/serve/mujoco_state.hpp>
#include <coupler/serve/world_steps.hpp>
#include <coupler/transport/frame_publisher.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/error.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "mujoco_reset_of.hpp"
#include "mujoco_state_arrays.hpp"
#include "mujoco_stepper_of.hpp"
#include "scatter_gather_arrays.hpp"
#include "server_handle.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

// A C-contiguous array of `size` numbers of type T, read (or written) where it lies.
template <typename T>
T* in_place(const py::array& array, std::size_t size, const char* what, bool written = true) {
  if (!array.dtype().is(py::dtype::of<T>()) || !(array.flags() & py::array::c_style) ||
      static_cast<std::size_t>(array.size()) != size || (written && !array.writeable())) {
    throw Error(std::string(what) + " must be a " + (written ? "writeable " : "") + "contiguous " +
                std::string(py::str(py::dtype::of<T>())) + " array of " + std::to_string(size) + " numbers");
  }
  return static_cast<T*>(const_cast<void*>(array.data()));
}

class WorldStepsOf {
 public:
  WorldStepsOf(py::list steppers, py::list scatters, py::list gathers, py::list data_gathers, std::size_t object_count,
               std::size_t data_width, std::size_t threads, std::uintptr_t after_step, py::list resets)
      : steppers_(std::move(steppers)),
        scatters_(std::move(scatters)),
        gathers_(std::move(gathers)),
        data_gathers_(std::move(data_gathers)),
        resets_(std::move(resets)) {
    const std::size_t n = steppers_.size();
    if (scatters_.size() != n || gathers_.size() != n || (data_gathers_.size() != n && data_gathers_.size() != 0) ||
        (resets_.size() != n && resets_.size() != 0)) {
      throw Error("a batch of worlds needs one stepper, scatter and gather per world (and data gather and reset, "
                  "if any)");
    }
    std::vector<WorldSteps::World> worlds(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto& stepper = steppers_[i].cast<MujocoStepperOf&>();
      worlds[i].stepper = &stepper.get();
      worlds[i].model = address_of(stepper.model(), "the model");
      worlds[i].data = address_of(stepper.data(), "the data");
      worlds[i].scatter = &scatters_[i].cast<ScatterInto&>().scatter;
      worlds[i].gather = &gathers_[i].cast<GatherFrom&>().gather;
      if (data_gathers_.size() != 0) worlds[i].data_gather = &data_gathers_[i].cast<GatherFrom&>().gather;
      if (resets_.size() != 0) {
        worlds[i].reset = &resets_[i].cast<MujocoResetOf&>().get();
        if (&worlds[i].reset->stepper() != worlds[i].stepper) {
          throw Error("world " + std::to_string(i) + "'s reset is of another stepper");
        }
      }
    }
    value_count_ = worlds.front().scatter->value_count();
    data_width_ = data_width;
    steps_ = std::make_unique<WorldSteps>(std::move(worlds), object_count, data_width, threads,
                                          reinterpret_cast<MujocoFunctions::Stage>(after_step));
  }

  void check(const py::array_t<double, py::array::c_style | py::array::forcecast>& values,
             const py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>& resets) const {
    const std::size_t n = steps_->count();
    const double* rows = in_place<double>(values, n * value_count_, "values", false);
    std::vector<std::uint8_t> reset(n, 0);
    const std::int64_t* worlds = resets.data();
    for (py::ssize_t k = 0; k < resets.size(); ++k) {
      if (worlds[k] < 0 || static_cast<std::size_t>(worlds[k]) >= n) {
        throw Error("resets must list worlds below " + std::to_string(n));
      }
      reset[static_cast<std::size_t>(worlds[k])] = 1;
    }
    steps_->check(rows, reset.data());
  }

  std::size_t threads() const { return steps_->threads(); }
  WorldSteps& get() { return *steps_; }
  std::size_t data_width() const { return data_width_; }

 private:
  py::list steppers_;
  py::list scatters_;
  py::list gathers_;
  py::list data_gathers_;
  py::list resets_;
  std::size_t value_count_ = 0;
  std::size_t data_width_ = 0;
  std::unique_ptr<WorldSteps> steps_;
};

// A WorldHotPath with the Python objects holding the memory it works on, kept alive as long as it is.
class WorldHotPathOf {
 public:
  WorldHotPathOf(py::object worlds, py::array values, py::array events_on, py::array sensors, py::array times,
                 py::array data, std::uint64_t max_steps, double stop_after, bool trace, double time_step)
      : worlds_(std::move(worlds)),
        arrays_{std::move(values), std::move(events_on), std::move(sensors), std::move(times), std::move(data)} {
    auto& steps = worlds_.cast<WorldStepsOf&>();
    WorldSteps& batch = steps.get();
    const std::size_t n = batch.count();
    WorldHotPathArrays arrays;
    arrays.values = in_place<double>(arrays_[0], n * batch.value_count(), "values");
    arrays.events_on = in_place<std::uint8_t>(arrays_[1], n * batch.event_count(), "events_on");
    arrays.sensors = in_place<double>(arrays_[2], n * batch.sensor_width(), "sensors");
    arrays.times = in_place<double>(arrays_[3], n, "times");
    arrays.data = in_place<double>(arrays_[4], n * steps.data_width(), "data");
    WorldHotPathConfig config;
    config.max_steps = max_steps;
    config.stop_after = stop_after;
    config.trace = trace;
    config.time_step = time_step;
    path_.emplace(batch, arrays, steps.data_width(), config);
  }

  WorldHotPathOutcome run(ServerHandle& server, const py::bytes& peer, double return_after, SharedRingWriter* ring,
                          bool starting, std::uint64_t steps_before,
                          std::optional<std::pair<std::size_t, std::size_t>> sizes_logged,
                          RunClock* clock, double late_after, double longest_hold) {
    const std::string identity(peer);
    const auto wait = milliseconds(return_after);
    std::optional<HotPathPacing> pacing;
    if (clock != nullptr) pacing = HotPathPacing{clock, late_after, longest_hold};
    Server& bound = server.get();
    py::gil_scoped_release released;
    return path_->run(bound, identity, wait, ring, starting, steps_before, sizes_logged, pacing);
  }

  std::optional<WorldHotPathOutcome> step_control(const py::bytes& payload) {
    const std::string frame(payload);
    py::gil_scoped_release released;
    return path_->step_control(frame);
  }

  std::optional<WorldHotPathOutcome> start_chunks(const py::bytes& payload) {
    const std::string frame(payload);
    py::gil_scoped_release released;
    return path_->start_chunks(frame);
  }

  bool send_held(ServerHandle& server) {
    Server& bound = server.get();
    py::gil_scoped_release released;
    return path_->send_held(bound);
  }

  void hold(const Request& request, const py::bytes& frame, double time) {
    path_->hold(request, std::string(frame), time);
  }

  bool end_long_control(ServerHandle& server, const std::string& text) {
    Server& bound = server.get();
    py::gil_scoped_release released;
    return path_->end_long_control(bound, text);
  }

  void publish_to(py::object publisher, const py::list& states) {
    std::vector<MujocoStateArrays> arrays;
    for (const auto& state : states) arrays.push_back(mujoco_state_arrays(py::reinterpret_borrow<py::object>(state)));
    path_->publish_to(publisher.cast<FramePublisher&>(), std::move(arrays));
    publisher_ = std::move(publisher);
    states_ = states;
  }

 private:
  py::object worlds_;
  py::array arrays_[5];
  py::object publisher_;
  py::list states_;
  std::optional<WorldHotPath> path_;
};

}  // namespace

void bind_world_steps(py::module_& module) {
  py::class_<WorldStepsOf>(module, "WorldSteps",
                           "coupler::WorldSteps: the worlds of a batched server stepped in C++ on `threads` "
                           "persistent threads, the GIL released.")
      .def(py::init<py::list, py::list, py::list, py::list, std::size_t, std::size_t, std::size_t, std::uintptr_t,
                    py::list>(),
           py::arg("steppers"), py::arg("scatters"), py::arg("gathers"), py::arg("data_gathers"),
           py::arg("object_count"), py::arg("data_width"), py::arg("threads"), py::arg("after_step"),
           py::arg("resets") = py::list(),
           "Each world is settled for its readings by its stepper (MujocoStepper.settle: mj_forward, or the stages "
           "its readings need); `resets`: each world's MujocoReset, of its stepper (empty: no world is reset "
           "here).")
      .def("check", &WorldStepsOf::check, py::arg("values"), py::arg("resets"),
           "ProtocolError (CONTROL_MISMATCH) naming the first value of `values` (float64, count x value_count) a "
           "world's scatter refuses, and the world: one beyond its limit in any world, else a mocap body's zero "
           "quaternion in a world not listed in `resets` (int64).")
      .def_property_readonly("threads", &WorldStepsOf::threads);

  py::class_<WorldHotPathOutcome>(module, "WorldHotPathOutcome", "What WorldHotPath.run did, and the request it "
                                                                 "hands back.")
      .def_property_readonly(
          "request", [](const WorldHotPathOutcome& o) { return o.request; },
          "A Request (or None) WorldHotPath did not serve: serve it as if it had just arrived.")
      .def_readonly("controls", &WorldHotPathOutcome::controls, "Controls for every world answered.")
      .def_readonly("steps", &WorldHotPathOutcome::steps, "Steps they took (each world).")
      .def_readonly("resets", &WorldHotPathOutcome::resets, "Worlds they reset.")
      .def_readonly("clamped", &WorldHotPathOutcome::clamped, "Values clamped by the Controls before the last.")
      .def_readonly("last_clamped", &WorldHotPathOutcome::last_clamped,
                    "(world, value index) of each value the last Control clamped, when it clamped one for the first "
                    "time (its values are still in the arrays); empty otherwise.")
      .def_readonly("simulated_time", &WorldHotPathOutcome::simulated_time,
                    "World 0's time after the last Control answered; None when none was.")
      .def_readonly("request_bytes", &WorldHotPathOutcome::request_bytes, "Bytes of the last Control answered.")
      .def_readonly("answer_bytes", &WorldHotPathOutcome::answer_bytes, "Bytes of its answer.")
      .def_property_readonly(
          "request_frame", [](const WorldHotPathOutcome& o) { return py::bytes(o.request_frame); },
          "Traced: the last Control answered, as received (empty otherwise).")
      .def_property_readonly(
          "answer_frame", [](const WorldHotPathOutcome& o) { return py::bytes(o.answer_frame); },
          "Traced: its answer, as sent.")
      .def_property_readonly(
          "since_last_control",
          [](const WorldHotPathOutcome& o) { return std::chrono::duration<double>(o.since_last_control).count(); },
          "Seconds since the last Control answered arrived.")
      .def_readonly("failure", &WorldHotPathOutcome::failure,
                    "Set when the worlds failed on a Control (answered with INTERNAL_ERROR): what failed.")
      .def_readonly("started", &WorldHotPathOutcome::started,
                    "Run `starting`: a Control was stepped and answered, which started the run; paced, the run's "
                    "clock was anchored at the time it stepped from.")
      .def_readonly("deadlines_missed", &WorldHotPathOutcome::deadlines_missed,
                    "Paced: Controls answered later than late_after past their time, in this run; the run's clock "
                    "counts them too.")
      .def_readonly("answer_held", &WorldHotPathOutcome::answer_held,
                    "Paced: the last Control's answer waits for its time; the next run() sends it when due, "
                    "send_held() at once.")
      .def_readonly("long_steps", &WorldHotPathOutcome::long_steps,
                    "A Control of many steps in progress (the next run() goes on with it): the steps it asks for; "
                    "0 when none is.")
      .def_readonly("long_taken", &WorldHotPathOutcome::long_taken, "Its steps taken so far.")
      .def_readonly("long_at_stop_after", &WorldHotPathOutcome::long_at_stop_after,
                    "It stopped at the step reaching stop_after, unanswered: end it with end_long_control().")
      .def_readonly("long_failed", &WorldHotPathOutcome::long_failed,
                    "The worlds failed during a Control of many steps (counted in controls when it was taken).")
      .def_readonly("long_done", &WorldHotPathOutcome::long_done,
                    "The Control of many steps the caller answers (start_chunks()) took its last step in this run: "
                    "the answer's arrays are written, for the caller to make and send it.");

  py::class_<WorldHotPathOf>(module, "WorldHotPath",
                             "coupler::WorldHotPath: answers a lone controller's Controls for every world in C++, "
                             "without the GIL, through `worlds` (a WorldSteps) and the caller's arrays, written in "
                             "place: `values` and `events_on` (the last Control's rows), `sensors`, `times` and "
                             "`data` (the last answer's); each world's stepper knows how its state is left. Controls "
                             "with images, with resets the worlds cannot take here, of more than `max_steps` steps "
                             "or with a value a world's scatter refuses are handed back, those of "
                             "more than coupler::StepChunks::kFirst taken in chunks; run() returns "
                             "after a Control that stepped world 0 to `stop_after` (seconds) or later, and with "
                             "`trace`, after each Control, its frames in the outcome.")
      .def(py::init<py::object, py::array, py::array, py::array, py::array, py::array, std::uint64_t, double, bool,
                    double>(),
           py::arg("worlds"), py::arg("values"), py::arg("events_on"), py::arg("sensors"), py::arg("times"),
           py::arg("data"), py::arg("max_steps"),
           py::arg("stop_after") = std::numeric_limits<double>::infinity(),
           py::arg("trace") = false, py::arg("time_step") = 0.0)
      .def("run", &WorldHotPathOf::run, py::arg("server"), py::arg("peer"), py::arg("return_after"),
           py::arg("ring") = nullptr, py::arg("starting") = false, py::arg("steps_before") = 0,
           py::arg("sizes_logged") = py::none(), py::arg("clock") = nullptr, py::arg("late_after") = 0.0, py::arg("longest_hold") = std::numeric_limits<double>::infinity(),
           "Answer the Controls for every world of `peer` (bytes) that `server` receives, their answers through "
           "`ring` (a SharedRingWriter, or None) when they ask, until a request needs the caller, `return_after` "
           "seconds pass, stop_after is reached, a value is clamped for the first time or the worlds fail. With "
           "`starting`, the run waits for its first Control: the first stepped starts it (outcome.started). "
           "`steps_before` (the steps taken so far) numbers the published states. With `sizes_logged` (the "
           "(received, sent) sizes --trace-sizes logged last), it returns after a Control whose sizes differ from "
           "the exchange's before it. With a `clock` (a RunClock with a speed, which the run uses alone meanwhile), "
           "each answer is held until its time is due by it, one answered more than `late_after` seconds late "
           "counted in deadlines_missed and on the clock; of a hold longer than `longest_hold` seconds, the time before "
           "its last `longest_hold` hands every request back, the answer held across runs (outcome.answer_held); "
           "the first Control of a run anchors the clock. "
           "The caller guarantees that "
           "`peer` alone drives the worlds. Returns a WorldHotPathOutcome.")
      .def("step_control", &WorldHotPathOf::step_control, py::arg("payload"),
           "Apply, step and read the Control for every world `payload` (bytes: its frame, its images and values "
           "checked by the caller, which renders the images and answers it) as run() serves one, every step at "
           "once, without answering it; a WorldHotPathOutcome counting it (its failure said there), or None, "
           "nothing applied, when it does not match the handshake (the caller names the problem). No Control may "
           "be in progress: no held answer, none of many steps.")
      .def("start_chunks", &WorldHotPathOf::start_chunks, py::arg("payload"),
           "As step_control(), for such a Control of more than coupler::StepChunks::kFirst steps: applied, its steps "
           "left to the next run(), which takes its chunks as its own and returns once its last is taken "
           "(long_done), for the caller to answer it from the arrays; cut at stop_after (long_at_stop_after), "
           "end_long_control() ends it, sending nothing. A WorldHotPathOutcome counting it (controls 1, its steps "
           "and resets, long_steps), or None, nothing applied, when step_control() would refuse it or it has too "
           "few steps to take in chunks.")
      .def("send_held", &WorldHotPathOf::send_held, py::arg("server"),
           "Send the paced answer held for its time (if one is) now, and publish it; whether one was.")
      .def("hold", &WorldHotPathOf::hold, py::arg("request"), py::arg("frame"), py::arg("time"),
           "Hold `frame`, the answer Python made to `request`, world 0 stepped to `time` s: the next paced run() "
           "sends it once due, and publishes it; send_held() at once. coupler.Error while a Control is in "
           "progress, or for a request through the shared channel.")
      .def("end_long_control", &WorldHotPathOf::end_long_control, py::arg("server"), py::arg("text"),
           "Answer the Control of many steps in progress (if one is) with SESSION_ENDED and `text`, and publish "
           "that answer; whether one was.")
      .def("publish_to", &WorldHotPathOf::publish_to, py::arg("publisher"), py::arg("states"),
           "From now on publish each Control answered on `publisher` (a FramePublisher): the Control, every world's "
           "MuJoCo state after its steps (`states`: per world, in order, its mjData's (qpos, qvel, act, ctrl, "
           "mocap_pos, mocap_quat) arrays, read in place) and the answer, as coupler.record.publisher does on the "
           "Python path. Keeps them alive.");
}

}  // namespace coupler::python
