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

#include <coupler/wire/error.hpp>
#include <coupler/transport/frame_publisher.hpp>
#include <coupler/serve/control_rounds.hpp>
#include <coupler/serve/free_run_states.hpp>
#include <coupler/serve/hot_path.hpp>
#include <coupler/serve/mujoco_state.hpp>
#include <coupler/serve/mujoco_stepper.hpp>
#include <coupler/serve/stepper.hpp>

#include "bindings.hpp"
#include "conversions.hpp"
#include "layout_arrays.hpp"
#include "mujoco_state_arrays.hpp"
#include "mujoco_stepper_of.hpp"
#include "scatter_gather_arrays.hpp"
#include "server_handle.hpp"

namespace py = pybind11;

namespace coupler::python {
namespace {

std::vector<std::string> identities(const std::vector<py::bytes>& peers) {
  std::vector<std::string> out;
  out.reserve(peers.size());
  for (const py::bytes& peer : peers) out.emplace_back(peer);
  return out;
}

std::vector<py::bytes> as_bytes(const std::vector<std::string>& peers) {
  std::vector<py::bytes> out;
  out.reserve(peers.size());
  for (const std::string& peer : peers) out.emplace_back(peer);
  return out;
}

// A HotPath with the Python objects holding the memory it works on, kept alive as long as it is.
class HotPathOf {
 public:
  HotPathOf(py::object controls, py::object sensors, py::object scatter, py::object gather, py::object stepper,
            std::uint64_t max_steps, double stop_after, bool trace, double time_step, double chunk_seconds)
      : controls_(std::move(controls)),
        sensors_(std::move(sensors)),
        scatter_(std::move(scatter)),
        gather_(std::move(gather)),
        stepper_(std::move(stepper)) {
    auto& c = controls_.cast<ControlArrays&>();
    auto& s = sensors_.cast<SensorArrays&>();
    HotPathConfig config;
    config.max_steps = max_steps;
    config.stop_after = stop_after;
    config.trace = trace;
    config.time_step = time_step;
    if (!(chunk_seconds > 0.0)) throw Error("chunk_seconds must be positive");
    config.chunk_seconds = chunk_seconds;
    path_.emplace(c.layout, c.targets, s.layout, s.data, scatter_.cast<ScatterInto&>().scatter,
                  gather_.cast<GatherFrom&>().gather, stepper_of(stepper_), config);
  }

  HotPathOutcome run(ServerHandle& server, const py::bytes& peer, double return_after, std::uint64_t steps_before,
                     RunClock* clock, double late_after, SharedChannelServer* channel, bool starting,
                     double longest_hold, const Request* first) {
    const std::string identity(peer);
    const auto wait = milliseconds(return_after);
    const std::optional<HotPathPacing> pacing = pacing_of(clock, late_after, longest_hold);
    Server& bound = server.get();
    path_->serve_channel(channel);
    std::optional<Request> handed;
    if (first) handed = *first;
    py::gil_scoped_release released;
    return path_->run(bound, identity, wait, steps_before, pacing, starting, std::move(handed));
  }

  HotPathOutcome run_rounds(ServerHandle& server, const std::vector<std::pair<py::bytes, std::vector<std::size_t>>>& drives,
                            ControlRounds& rounds, double return_after, std::uint64_t steps_before,
                            RunClock* clock, double late_after, bool starting, double longest_hold,
                            const Request* first) {
    std::vector<HotPathController> controllers;
    for (const auto& [peer, objects] : drives) controllers.push_back({std::string(peer), objects});
    const auto wait = milliseconds(return_after);
    const std::optional<HotPathPacing> pacing = pacing_of(clock, late_after, longest_hold);
    Server& bound = server.get();
    std::optional<Request> handed;
    if (first) handed = *first;
    py::gil_scoped_release released;
    return path_->run(bound, controllers, rounds, wait, steps_before, pacing, starting, std::move(handed));
  }

  HotPathOutcome run_free(ServerHandle& server, const py::bytes& peer, double return_after, RunClock& clock,
                          double time_step, double late_after, bool fresh_control, std::uint64_t steps_before,
                          FreeRunStates* states) {
    const std::string identity(peer);
    const auto wait = milliseconds(return_after);
    const HotPathFreeRun free{&clock, time_step, late_after, fresh_control, steps_before, states};
    Server& bound = server.get();
    py::gil_scoped_release released;
    return path_->run_free(bound, identity, wait, free);
  }

  HotPathOutcome start_chunks(std::uint64_t steps) {
    py::gil_scoped_release released;
    return path_->start_chunks(steps);
  }

  bool has_long_control() const noexcept { return path_->has_long_control(); }

  HotPathOutcome start_applied_chunks(std::uint64_t steps) {
    py::gil_scoped_release released;
    return path_->start_applied_chunks(steps);
  }

  HotPathOutcome apply_checked() { return path_->apply_checked(); }

  HotPathOutcome step_applied(std::uint64_t steps) {
    py::gil_scoped_release released;
    return path_->step_applied(steps);
  }

  HotPathOutcome step_checked(std::uint64_t steps) {
    py::gil_scoped_release released;
    return path_->step_checked(steps);
  }

  bool end_long_control(ServerHandle& server, const std::string& text) {
    return path_->end_long_control(server.get(), text);
  }

  bool send_held(ServerHandle& server) { return path_->send_held(server.get()); }

  void hold(const Request& request, const py::bytes& frame, double time) {
    path_->hold(request, std::string(frame), time);
  }

  void publish_to(py::object publisher, py::object state) {
    std::optional<MujocoStateArrays> arrays;
    if (!state.is_none()) arrays = mujoco_state_arrays(state);
    path_->publish_to(publisher.cast<FramePublisher&>(), arrays);
    publisher_ = std::move(publisher);
    state_ = std::move(state);
  }

 private:
  // Paced by `clock` (None: unpaced).
  static std::optional<HotPathPacing> pacing_of(RunClock* clock, double late_after, double longest_hold) {
    if (clock == nullptr) return std::nullopt;
    return HotPathPacing{clock, late_after, longest_hold};
  }

  static Stepper& stepper_of(const py::object& stepper) {
    if (py::isinstance<MujocoStepperOf>(stepper)) return stepper.cast<MujocoStepperOf&>().get();
    return stepper.cast<Stepper&>();
  }

  py::object controls_;
  py::object sensors_;
  py::object scatter_;
  py::object gather_;
  py::object stepper_;
  py::object publisher_;
  py::object state_;
  std::optional<HotPath> path_;
};

// A Stepper written in Python (a simulation's own stepping, or one that fails, for tests): each call takes the GIL.
// What it raises becomes a coupler::Error of one line ("RuntimeError: ..."), as a C++ stepper's failure is: the
// failure reaches InternalError answers and logs, where the Python stack (the server's files) has no place.
class PyStepper : public Stepper {
 public:
  void step(std::uint64_t steps) override {
    in_one_line([&] { PYBIND11_OVERRIDE_PURE(void, Stepper, step, steps); });
  }
  void settle() override {
    in_one_line([&] { PYBIND11_OVERRIDE(void, Stepper, settle, ); });
  }
  double time() const override {
    return in_one_line([&]() -> double { PYBIND11_OVERRIDE_PURE(double, Stepper, time, ); });
  }

 private:
  template <class Call>
  static auto in_one_line(Call&& call) -> decltype(call()) {
    try {
      return call();
    } catch (py::error_already_set& e) {
      py::gil_scoped_acquire gil;
      const std::string text = e.what();
      throw Error(text.substr(0, text.find('\n')));
    }
  }
};

}  // namespace

void bind_hot_path(py::module_& module) {
  py::class_<Stepper, PyStepper>(module, "Stepper",
                                 "coupler::Stepper: how a simulation advances, for HotPath. A subclass in Python "
                                 "defines step(steps) and time() (seconds), and may define settle().")
      .def(py::init<>());
  py::class_<CountedSteps, Stepper>(module, "CountedSteps",
                                    "coupler::CountedSteps: a simulation without physics, whose time is the steps "
                                    "taken times `time_step` (seconds).")
      .def(py::init<double>(), py::arg("time_step"))
      .def("step", &CountedSteps::step, py::arg("steps"), "Take `steps` steps.")
      .def_property_readonly("steps", &CountedSteps::steps)
      .def_property_readonly("time", &CountedSteps::time, "Seconds: steps times the time step.")
      .def("reset", &CountedSteps::reset, "Back to step 0.");

  py::class_<MujocoStepperOf>(module, "MujocoStepper",
                              "coupler::MujocoStepper of a mujoco.MjModel and its MjData, through MuJoCo's C "
                              "functions given as addresses (`functions`: mj_step, mj_step2, mj_forward, mj_checkPos, "
                              "mj_checkVel, mj_getState; with `resume_rk4` also mj_forwardSkip, mj_checkAcc and "
                              "mj_RungeKutta). `warnings` is data.warning.number; `bad_qpos` and `bad_qvel` "
                              "the places of those warnings in it. `readings_stages`: the names of the stages of "
                              "mj_forward (in `functions`) that settle every reading (None: mj_forward itself; "
                              "empty: the readings need none); `stages_forward`: they are all of the position and "
                              "velocity stages, from which the next step may start. Keeps all of them alive.")
      .def(py::init<py::object, py::object, const py::dict&, bool, Counters, std::size_t, std::size_t, bool,
                    const std::optional<std::vector<std::string>>&, bool>(),
           py::arg("model"), py::arg("data"), py::arg("functions"), py::arg("split_step"), py::arg("warnings"),
           py::arg("bad_qpos"), py::arg("bad_qvel"), py::arg("resume_rk4") = false,
           py::arg("readings_stages") = py::none(), py::arg("stages_forward") = false)
      .def("step", [](MujocoStepperOf& s, std::uint64_t steps) { s.get().step(steps); }, py::arg("steps"),
           py::call_guard<py::gil_scoped_release>(),
           "Take `steps` steps (after the position and velocity stages of this state the first runs only mj_step2, "
           "or the rest of an RK4 step), bit for bit as mj_step would.")
      .def("settle", [](MujocoStepperOf& s) { s.get().settle(); }, py::call_guard<py::gil_scoped_release>(),
           "mj_forward, or the readings' stages, unless the state is settled.")
      .def("unsettle", [](MujocoStepperOf& s) { s.get().unsettle(); },
           "Controls were applied: the next read settles the state again (its position and velocity stages hold).")
      .def("repositioned", [](MujocoStepperOf& s) { s.get().repositioned(); },
           "A pose was written (or the state is unknown): the next read settles it again, the next step starts "
           "afresh.")
      .def_property_readonly("settled", [](MujocoStepperOf& s) { return s.get().settled(); },
                             "The readings belong to the current state: settled, nothing changed since.")
      .def_property_readonly("time", [](MujocoStepperOf& s) { return s.get().time(); });

  py::class_<FreeRunStates>(module, "FreeRunStates",
                            "coupler::FreeRunStates: which of a free run's states an observer sees, `per_second` on "
                            "average in bursts of up to `burst` (a token bucket).")
      .def(py::init<double, double>(), py::arg("per_second"), py::arg("burst"))
      .def("take", [](FreeRunStates& s) { return s.take(); }, "A step was taken now: True when its state is shown.")
      .def_property_readonly("unseen", &FreeRunStates::unseen,
                             "True when the state of the last step taken has not been shown.")
      .def("seen", &FreeRunStates::seen, "The last state was shown another way (at the run's end).");

  py::class_<ControlRounds>(module, "ControlRounds",
                            "coupler::ControlRounds: the Controls of several controllers waiting for their round, "
                            "which takes the fewest steps any of them asked for (a Control asking for none, one).")
      .def(py::init<>())
      .def("hold", [](ControlRounds& r, const py::bytes& peer, std::uint64_t steps) { r.hold(peer, steps); },
           py::arg("peer"), py::arg("steps"),
           "`peer`'s Control, applied, waits asking for `steps`; coupler.Error if one of its Controls waits already.")
      .def("attach", [](ControlRounds& r, const Request& request) { r.attach(request); }, py::arg("request"),
           "The Request to answer once its peer's waiting Control is stepped.")
      .def("holds", [](const ControlRounds& r, const py::bytes& peer) { return r.holds(peer); }, py::arg("peer"))
      .def("__len__", &ControlRounds::size)
      .def("due", [](const ControlRounds& r, const std::vector<py::bytes>& peers) { return r.due(identities(peers)); },
           py::arg("peers"), "The steps of the round once each of `peers` has a Control waiting; None before.")
      .def(
          "take",
          [](ControlRounds& r, const std::vector<py::bytes>& peers) {
            ControlRounds::Round round = r.take(identities(peers));
            return py::make_tuple(as_bytes(round.peers), round.steps, std::move(round.requests));
          },
          py::arg("peers"),
          "Take the round of `peers`' waiting Controls: (their peers, the steps it takes, the Requests to answer). "
          "Other peers' waiting Controls are dropped unanswered.")
      .def("drop", [](ControlRounds& r, const py::bytes& peer) { r.drop(peer); }, py::arg("peer"),
           "`peer` no longer drives: its waiting Control is dropped unanswered.")
      .def("release", &ControlRounds::release, "Every waiting Request, to answer now; nothing waits afterwards.");

  py::class_<HotPathOutcome>(module, "HotPathOutcome", "What HotPath.run did, and the request it hands back.")
      .def_property_readonly(
          "request", [](const HotPathOutcome& o) { return o.request; },
          "A Request (or None) HotPath did not serve: serve it as if it had just arrived.")
      .def_readonly("controls", &HotPathOutcome::controls, "Controls answered.")
      .def_readonly("steps", &HotPathOutcome::steps, "Steps they took.")
      .def_readonly("rounds", &HotPathOutcome::rounds, "Several controllers: rounds taken.")
      .def_readonly("error_answers", &HotPathOutcome::error_answers,
                    "Answers sent with INTERNAL_ERROR because the simulation failed.")
      .def_readonly("steps_without_control", &HotPathOutcome::steps_without_control,
                    "A free run: steps taken without a Control applied since the previous step.")
      .def_readonly("fresh_control", &HotPathOutcome::fresh_control,
                    "A free run: a Control was applied since the last step.")
      .def_property_readonly(
          "since_last_round",
          [](const HotPathOutcome& o) { return std::chrono::duration<double>(o.since_last_round).count(); },
          "Several controllers: seconds since the last round was taken.")
      .def_readonly("clamped", &HotPathOutcome::clamped, "Values applied outside their range.")
      .def_readonly("reads", &HotPathOutcome::reads, "SensorRequests answered (the controller's and others').")
      .def_readonly("deadlines_missed", &HotPathOutcome::deadlines_missed,
                    "Paced: Controls answered (a free run: steps taken) more than late_after seconds past their time, "
                    "in this run; the run's clock counts them too.")
      .def_readonly("unanswered_reads", &HotPathOutcome::unanswered_reads,
                    "SensorRequests taken and left unanswered because the simulation failed: answer them.")
      .def_readonly("request_bytes", &HotPathOutcome::request_bytes, "Bytes of the last Control answered.")
      .def_readonly("answer_bytes", &HotPathOutcome::answer_bytes, "Bytes of its answer.")
      .def_property_readonly(
          "request_frame", [](const HotPathOutcome& o) { return py::bytes(o.request_frame); },
          "Traced: the last Control answered, as received (empty otherwise).")
      .def_property_readonly(
          "answer_frame", [](const HotPathOutcome& o) { return py::bytes(o.answer_frame); },
          "Traced: its answer, as sent (empty otherwise); after step_checked(), the answer's readings.")
      .def_readonly("first_clamped", &HotPathOutcome::first_clamped,
                    "Of those, the values (indices) clamped for the first time since the HotPath was made.")
      .def_readonly("simulated_time", &HotPathOutcome::simulated_time,
                    "The time of the last state sent; None when no Control was answered.")
      .def_property_readonly(
          "since_last_control",
          [](const HotPathOutcome& o) { return std::chrono::duration<double>(o.since_last_control).count(); },
          "Seconds since the last Control answered arrived.")
      .def_readonly("failure", &HotPathOutcome::failure,
                    "Set when the simulation failed on a Control (answered with INTERNAL_ERROR): what failed.")
      .def_readonly("long_steps", &HotPathOutcome::long_steps,
                    "The steps of the lone controller's Control of many steps in progress (run() goes on with it); "
                    "0 when none is.")
      .def_readonly("long_taken", &HotPathOutcome::long_taken, "Of those, the steps taken so far.")
      .def_readonly("long_at_stop_after", &HotPathOutcome::long_at_stop_after,
                    "It stopped at the step reaching stop_after, unanswered: end it with end_long_control().")
      .def_readonly("long_failed", &HotPathOutcome::long_failed,
                    "The simulation failed during a Control of many steps (counted in `controls` when taken).")
      .def_readonly("long_done", &HotPathOutcome::long_done,
                    "The Control of many steps the caller answers (start_chunks()) took its last step in this run: "
                    "the state read is its answer's, for the caller to make and send.")
      .def_readonly("answer_held", &HotPathOutcome::answer_held,
                    "Paced: the lone controller's answer (counted when stepped), or a round's answers (the round counted "
                    "once answered), wait for their time; the next run() sends them when due, send_held() at once.")
      .def_readonly("started", &HotPathOutcome::started,
                    "Run `starting`: the Control (or round) that started the run was taken; paced, the run's clock "
                    "was anchored at the simulated time before its steps.");

  py::class_<HotPathOf>(module, "HotPath",
                        "coupler::HotPath: answers a lone controller's Controls (and everyone's SensorRequests, the "
                        "controller's first, as ReaderShare's defaults say) in C++, from the arrays of "
                        "`controls` (a ControlLayout) through `scatter`, `stepper` and `gather` to those of `sensors` "
                        "(a SensorLayout). A Control of more than StepChunks.FIRST steps is taken in chunks of about "
                        "`chunk_seconds` of stepping, reads answered between them, and stops at the step reaching "
                        "`stop_after` (given `time_step`, seconds a step takes). A Control of more than `max_steps` "
                        "steps, or with a value `scatter` refuses, is handed back; run() returns after a Control that stepped to `stop_after` "
                        "(seconds) or later. With `trace`, run() returns after each Control answered, its frames in "
                        "the outcome, and hands back every other request, for the caller to log.")
      .def(py::init<py::object, py::object, py::object, py::object, py::object, std::uint64_t, double, bool, double,
                    double>(),
           py::arg("controls"), py::arg("sensors"), py::arg("scatter"), py::arg("gather"), py::arg("stepper"),
           py::arg("max_steps") = HotPathConfig::kDefaultMaxSteps,
           py::arg("stop_after") = std::numeric_limits<double>::infinity(), py::arg("trace") = false,
           py::arg("time_step") = 0.0, py::arg("chunk_seconds") = StepChunks::kSeconds)
      .def_property_readonly_static(
          "DEFAULT_MAX_STEPS", [](const py::object&) { return HotPathConfig::kDefaultMaxSteps; },
          "Controls asking for more steps than this go back to the caller (the cap on a Control's steps).")
      .def("step_checked", &HotPathOf::step_checked, py::arg("steps"),
           "Apply, step and read, as run() takes any Control, a Control read into the control arrays that the "
           "caller has checked (any value beyond its limit, any pose the scatter refuses, refused there): whatever "
           "its values, `steps` steps (up to `max_steps`) taken at once, without the GIL; with 0 (a free run's "
           "Control) none, the answer reading the state with its controls applied. The answer's readings (or the "
           "INTERNAL_ERROR frame) in answer_frame, for the caller to add any images to and send.")
      .def("start_chunks", &HotPathOf::start_chunks, py::arg("steps"),
           "As step_checked(), for a Control of more than StepChunks.FIRST `steps`: applied (its failure and "
           "INTERNAL_ERROR frame in the outcome when it cannot be; answer_frame empty and long_steps 0 for one of "
           "fewer steps), its steps left to the next run(), which takes its chunks as its own and returns once its "
           "last is taken (long_done), for the caller to answer it; cut at stop_after (long_at_stop_after), "
           "end_long_control() ends it, sending nothing. The outcome counts it (controls 1, long_steps).")
      .def("apply_checked", &HotPathOf::apply_checked,
           "Apply, without a step, a Control of one of several controllers read into the control arrays and checked "
           "by the caller (as for step_checked()), to wait for the others' Controls of its round: the outcome counts "
           "it (controls 1, its clamps; or its failure and INTERNAL_ERROR frame in answer_frame).")
      .def("step_applied", &HotPathOf::step_applied, py::arg("steps"),
           "Take `steps` steps (0: none) of the controls apply_checked() applied (a round's), from the state the "
           "caller settled, without the GIL, and read it: as step_checked() without applying (controls 0).")
      .def("start_applied_chunks", &HotPathOf::start_applied_chunks, py::arg("steps"),
           "As start_chunks(), for a round of more than StepChunks.FIRST `steps` whose Controls apply_checked() "
           "applied: nothing applied (controls 0), its steps left to the next run().")
      .def("end_long_control", &HotPathOf::end_long_control, py::arg("server"), py::arg("text"),
           "Answer the Control of many steps in progress (if any; not one the caller answers) with SESSION_ENDED "
           "and `text`, and publish that answer; whether one was in progress.")
      .def_property_readonly("has_long_control", &HotPathOf::has_long_control,
                             "Whether a Control of many steps is in progress (the next run() goes on with it).")
      .def("send_held", &HotPathOf::send_held, py::arg("server"),
           "Send the paced answer held for its time (if any) now, and publish it; whether one was held.")
      .def("hold", &HotPathOf::hold, py::arg("request"), py::arg("frame"), py::arg("time"),
           "Hold `frame`, the answer Python made to `request`, stepped to `time` s: the next paced run() sends it "
           "once due, serving the others meanwhile, and publishes it; send_held() at once. coupler.Error while an "
           "answer is held or a Control of many steps is in progress, or for a request through the shared channel.")
      .def("publish_to", &HotPathOf::publish_to, py::arg("publisher"), py::arg("state") = py::none(),
           "From now on publish each Control answered on `publisher` (a FramePublisher): the Control, the MuJoCo state "
           "after its step read from `state` (mjData's qpos, qvel, act, ctrl, mocap_pos and mocap_quat arrays, read in "
           "place; None: no state) "
           "and the answer; and each read answered (unless traced), then its answer, as coupler.record.publisher does "
           "on the Python path. Keeps them alive.")
      .def("run", &HotPathOf::run, py::arg("server"), py::arg("peer"), py::arg("return_after"),
           py::arg("steps_before") = 0, py::arg("clock") = nullptr, py::arg("late_after") = 0.0,
           py::arg("channel") = nullptr, py::arg("starting") = false,
           py::arg("longest_hold") = std::numeric_limits<double>::infinity(), py::arg("first") = nullptr,
           "Answer the Controls of `peer` (bytes) that `server` receives (and, with a SharedChannelServer `channel` "
           "leased to `peer`, its plain Controls and reads through that channel), without the GIL, until a request needs the "
           "caller, `return_after` seconds pass, stop_after is reached, a value is clamped for the first time or the "
           "simulation fails. `steps_before` (the steps taken so far) numbers the published states. With a `clock` (a RunClock with a speed, which the run uses alone meanwhile), each answer is held until its time is due by it, a Control answered more than `late_after` seconds late counted in deadlines_missed and on the clock; of a hold longer than `longest_hold` seconds, the time before its last `longest_hold` serves other peers' reads and hands anything else back, the answer held across runs (outcome.answer_held). With `starting`, the run waits for its first Control: the first taken starts it (outcome.started) and, paced, anchors the clock at the simulated time it steps from. The caller guarantees that `peer` alone holds the simulation and its state is settled. `first`: a Request the caller received (the Control that admitted `peer`), served first as if it had just arrived, or handed back. "
           "Returns a HotPathOutcome.")
      .def("run_rounds", &HotPathOf::run_rounds, py::arg("server"), py::arg("controllers"), py::arg("rounds"),
           py::arg("return_after"), py::arg("steps_before") = 0, py::arg("clock") = nullptr,
           py::arg("late_after") = 0.0, py::arg("starting") = false,
           py::arg("longest_hold") = std::numeric_limits<double>::infinity(), py::arg("first") = nullptr,
           "As run(), for several `controllers` ((peer, indices of the objects it drives) each) stepping together "
           "through `rounds` (a ControlRounds): a Control of one of them for objects it drives waits there, applied, "
           "and the round is stepped and answered once every controller's waits; one asking for more than max_steps "
           "is left there for the caller. Paced, a round's answers that would wait longer than `longest_hold` are held as "
           "run()'s (outcome.answer_held). Traced, returns after each Control taken, its frame in request_frame. "
           "With `starting`, the first round taken starts the run, as run()'s first Control; `first` as run()'s.")
      .def("run_free", &HotPathOf::run_free, py::arg("server"), py::arg("peer"), py::arg("return_after"),
           py::arg("clock"), py::arg("time_step"), py::arg("late_after"), py::arg("fresh_control"),
           py::arg("steps_before") = 0, py::arg("states") = nullptr,
           "A free run of `peer`'s simulation, without the GIL: one step of `time_step` seconds each time one is due "
           "by `clock` (a RunClock, which the run uses alone meanwhile; without a speed: as fast as it steps), a "
           "step more than `late_after` seconds late counted in deadlines_missed and on the clock; a Control of `peer` "
           "answered with the state after applying it, reads with the state, until a request needs the caller, "
           "`return_after` seconds pass, a step reaches stop_after, a value is clamped for the first time or the "
           "simulation fails. `fresh_control`: a Control was applied since the last step. Traced, returns after each "
           "Control answered with its frames, and hands reads back. Published, publishes each Control and each read "
           "with its answer, and the state after a step (numbered from `steps_before`) when `states` (a "
           "FreeRunStates) says so. "
           "Returns a HotPathOutcome.");
}

}  // namespace coupler::python
