#pragma once
// The round trip of the controllers in lockstep, served without leaving
// C++: a Control of the controller holding the simulation is received,
// checked, written into the simulation's controls, stepped, read back,
// encoded and answered, over and over. With several controllers (given
// their ControlRounds), each Control of a controller for robots it drives
// is applied and waits there, and once the round is due the simulation
// steps and every waiting Control is answered with the same state. SensorRequests (reads, which change
// nothing) are answered here too, the controller's first, waiting in WaitingRequests (waiting_requests.hpp):
// the others get `reader_share` reads after each request of the controller, then wait up to
// `reader_patience` for its next one before one more is served. Everything
// else (another request of another peer, a Control that does not match, one
// claiming a robot its controller does not drive yet, a timer) goes back to the caller, which owns the protocol's
// control plane, with a count of what was done meanwhile.
//
// A Control asking for camera images goes back to the caller, which checks
// the images, reads the Control and has step_checked() apply and step it as
// run() would, then renders the images and answers, or paced, has hold()
// keep its answer until due, as run() keeps its own. One of more than
// StepChunks::kFirst steps is applied by start_chunks(), and the next run()
// takes its chunks as its own, returning once its last is taken for the
// caller to answer it.
//
// A lone controller's Control (or a round) of more than StepChunks::kFirst
// steps is taken in chunks (step_chunks.hpp); between two chunks the reads
// waiting are answered with the state of the last chunk, and anything else
// goes back to the caller with the Control still in progress: the next run()
// goes on with it, and the caller refuses requests to drive meanwhile, or
// ends it with end_long_control() (a stop).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/wire/control_layout.hpp>
#include <coupler/serve/answer_pacing.hpp>
#include <coupler/serve/control_rounds.hpp>
#include <coupler/serve/control_scatter.hpp>
#include <coupler/serve/free_run_states.hpp>
#include <coupler/transport/frame_publisher.hpp>
#include <coupler/serve/mujoco_state.hpp>
#include <coupler/serve/reader_share.hpp>
#include <coupler/serve/sensor_gather.hpp>
#include <coupler/serve/step_chunks.hpp>
#include <coupler/wire/limits.hpp>
#include <coupler/wire/sensor_layout.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_channel.hpp>
#include <coupler/serve/stepper.hpp>

namespace coupler {

namespace detail {
class ControlFrameReader;
}  // namespace detail

struct HotPathConfig {
  // Controls (and rounds) asking for more steps than this go back to the
  // caller, which refuses those beyond the cap. Those of more than
  // StepChunks::kFirst steps and at most this are taken in chunks; paced,
  // their answers are held once their last chunk is taken.
  static constexpr std::uint64_t kDefaultMaxSteps = limits::kMaxStepsPerControl;

  std::uint64_t max_steps = kDefaultMaxSteps;
  // Return after answering a Control that stepped the simulation to this
  // time (seconds) or later.
  double stop_after = std::numeric_limits<double>::infinity();
  // Seconds of simulated time a step takes: a Control of many steps stops at
  // the step reaching stop_after, for the caller to end (0: it takes them all).
  double time_step = 0.0;
  // Seconds of stepping per chunk of a Control of many steps.
  double chunk_seconds = StepChunks::kSeconds;
  // Reads of other peers answered after each request of the controller.
  std::uint64_t reader_share = ReaderShare::kShare;
  // How long reads of others wait for the controller's next request once their share is used, before one more
  // is answered.
  std::chrono::microseconds reader_patience = ReaderShare::kPatience;
  // Every exchange is to be logged (coupler serve --trace): run() returns
  // after each Control it answers, with its frames in the outcome, and hands
  // every other request back, so that the caller logs each as it serves it.
  bool trace = false;
};

// A controller holding the simulation, for run().
struct HotPathController {
  std::string peer;
  // Several controllers: the objects (indices into the control layout's
  // objects()) it drives. A Control carrying values of any other goes back to
  // the caller, which claims the object for it or refuses the Control.
  std::vector<std::size_t> objects;
};

// A free run (coupler serve --mode free) for run_free(): the simulation
// steps on the wall clock, one step each time its time is due, and a Control
// only replaces the controls applied.
struct HotPathFreeRun {
  // The run's clock: the caller's, which outlives the run and is used by no
  // one else meanwhile. A step is taken when its time is due by it (without
  // a speed, at once), and a missed deadline is counted on it.
  RunClock* clock = nullptr;
  double time_step = 0.0;  // seconds of simulated time a step takes
  // A step taken more than this many seconds after its time counts as a missed deadline.
  double late_after = 0.0;
  // A Control was applied since the last step (before the run).
  bool fresh_control = false;
  // With a publisher: the steps taken before the run (they number the states published) and which states
  // are published, shared with the caller's observer.
  std::uint64_t steps_before = 0;
  FreeRunStates* states = nullptr;
};

// What run() did, and the request it hands back, if any.
struct HotPathOutcome {
  // A request run() did not serve, to be served by the caller as if it had
  // just arrived (its Control, if it is one, has not touched the simulation).
  std::optional<Request> request;
  std::uint64_t controls = 0;  // Controls answered (several controllers: Controls taken to wait for their round)
  std::uint64_t steps = 0;     // steps they took
  std::uint64_t rounds = 0;    // several controllers: rounds taken (stepped and answered, or failed)
  // Answers sent with InternalError because the simulation failed.
  std::uint64_t error_answers = 0;
  // A free run: steps taken without a Control applied since the previous one (the controller did not keep up),
  // and whether a Control was applied since the last step when it returned.
  std::uint64_t steps_without_control = 0;
  bool fresh_control = false;
  std::uint64_t clamped = 0;   // values applied outside their range
  std::uint64_t reads = 0;     // SensorRequests answered (the controller's and others')
  // Paced: Controls answered (a free run: steps taken) later than late_after past their time, in this run; the
  // run's clock counts them too.
  std::uint64_t deadlines_missed = 0;
  // Reads taken from the socket and not answered because the simulation
  // failed (its state is unknown): the caller answers them.
  std::vector<Request> unanswered_reads;
  // Of those, the values (indices into the control arrays) clamped for the
  // first time since this HotPath was made.
  std::vector<std::size_t> first_clamped;
  // The time of the last state sent, when a Control was answered.
  std::optional<double> simulated_time;
  // The sizes of the last Control answered and of its answer, in bytes.
  std::size_t request_bytes = 0;
  std::size_t answer_bytes = 0;
  // With HotPathConfig::trace: the Control answered and its answer, as sent; after step_checked(), the answer's
  // readings.
  std::string request_frame;
  std::string answer_frame;
  // How long ago the last Control answered arrived.
  std::chrono::steady_clock::duration since_last_control{};
  // Several controllers: how long ago the last round was answered (every controller's lease runs from it).
  std::chrono::steady_clock::duration since_last_round{};
  // Set when the simulation failed on a Control, which was answered with
  // InternalError: the simulation's state is unknown.
  std::string failure;
  // A Control of many steps (a lone controller's, or a round) in progress when run() returned (the next run()
  // goes on with it, or end_long_control() ends it): the steps it asks for and those taken; both 0 when none is.
  std::uint64_t long_steps = 0;
  std::uint64_t long_taken = 0;
  // It stopped at the step reaching stop_after, unanswered: the caller ends it (end_long_control()).
  bool long_at_stop_after = false;
  // Run with `starting`: the Control (or round) that started the run was taken. Paced, the run's clock was
  // anchored then at the simulated time before its steps.
  bool started = false;
  // The simulation failed during a Control of many steps (counted in `controls` when it was taken).
  bool long_failed = false;
  // Paced: the lone controller's answer (counted in `controls` and `steps` when it was stepped), or a round's
  // answers (its steps counted when stepped, the round once answered), wait for their time when run() returned;
  // the next run() sends them when due, or send_held() at once.
  bool answer_held = false;
  // The Control of many steps the caller answers (start_chunks()) took its last step in this run: the state read
  // is the answer's, for the caller to make and send (it failed: `long_failed`; cut at stop_after: it is still in
  // progress, `long_at_stop_after`).
  bool long_done = false;
};

class HotPath {
 public:
  // Every argument must outlive the HotPath. `targets` are the arrays
  // `controls` reads into and `scatter` applies from; `sensor_values`
  // (sensors.size() numbers) is what `gather` fills and `sensors` encodes.
  HotPath(const ControlLayout& controls, ControlTargets targets, SensorLayout& sensors,
          double* sensor_values, const ControlScatter& scatter, const SensorGather& gather, Stepper& stepper,
          HotPathConfig config = {});

  // Answers the Controls of `peer` that `server` receives until a request needs the caller (handed
  // back in the outcome), `return_after` has passed (so the caller gets to
  // run its timers and signal handlers), a Control stepped to stop_after, a
  // value was clamped for the first time, or the simulation failed. The
  // caller guarantees that `peer` holds the simulation alone and that the
  // simulation's state is settled.
  // `steps_before`: the steps the simulation took before this call, which
  // numbers the published states. With `pacing`, each answer waits for its
  // time on the caller's clock (pacing.clock). With `starting`, the run waits for its first
  // Control (after a handshake, a reset or a change of driver): the first
  // Control taken starts it, and paced, anchors that clock where it stepped
  // from, its answer held for its own steps (the outcome says so).
  // `first`: a request the caller received and hands over (the Control
  // that admitted `peer`: the caller decides who drives), served before
  // anything else as if it had just arrived; one this path does not serve
  // is handed back as any other.
  HotPathOutcome run(Server& server, const std::string& peer, std::chrono::milliseconds return_after,
                     std::uint64_t steps_before = 0, std::optional<HotPathPacing> pacing = std::nullopt,
                     bool starting = false, std::optional<Request> first = std::nullopt);
  // The same for several `controllers` stepping together through `rounds`
  // (Controls held by the caller wait there too, and are answered with the
  // round that completes them; a round already complete, by the caller's
  // last Control or because a controller left, is stepped first). A round asking for more than max_steps is
  // left in `rounds` to the caller; one of more than StepChunks::kFirst is
  // taken in chunks. Traced, it returns after each Control
  // taken, its frame in the outcome. With a publisher, each Control is
  // published as it is taken, a round's state and answers once it is
  // answered, and each read with its answer, as the Python path publishes them.
  // With `starting`, the first round taken starts the run, as a lone controller's first Control does. `first`:
  // as for a lone controller (the Control that admitted one of `controllers`, or claimed its objects).
  HotPathOutcome run(Server& server, const std::vector<HotPathController>& controllers, ControlRounds& rounds,
                     std::chrono::milliseconds return_after, std::uint64_t steps_before = 0,
                     std::optional<HotPathPacing> pacing = std::nullopt, bool starting = false,
                     std::optional<Request> first = std::nullopt);
  // A free run of `peer`'s simulation: steps each time a step is due,
  // answers a Control of `peer` with the state after applying it (it takes
  // no steps) and reads with the state, until a request needs the caller,
  // `return_after` has passed, a step reached stop_after, a value was clamped
  // for the first time or the simulation failed. Reads are answered in
  // arrival order. Traced, it returns after each Control answered, with its
  // frames, and hands reads back. With a publisher, each Control and each
  // read are published with their answers, and the state after a step when
  // `free.states` says so.
  HotPathOutcome run_free(Server& server, const std::string& peer, std::chrono::milliseconds return_after,
                          const HotPathFreeRun& free);

  // Takes a Control run() hands back (one asking for images, one of another encoding or a newcomer's) or
  // that the caller was given as a message, once the caller has read it into the control arrays
  // (ControlLayout::read) and checked it (refusing any value beyond its limit and any pose the scatter refuses,
  // which it names): applied whatever its values, stepped and read as run() takes any Control, `steps` steps (up
  // to max_steps) at once, for the caller to render any images of the state after its steps and send the answer;
  // with 0 (a free run's Control) none, its answer reading the state with its controls applied, as run_free()
  // answers. The outcome counts it (`controls` 1, its steps, clamps and the time reached; or the failure,
  // `error_answers` 1) and holds the answer's readings in `answer_frame` (the InternalError frame when the
  // simulation failed). A paced answer held for its time (of a controller that has gone) stays held.
  HotPathOutcome step_checked(std::uint64_t steps);
  // The same for a Control of more than StepChunks::kFirst steps, taken in chunks as run() takes its own, for the
  // caller to answer: applied (its failure, `error_answers` 1 and the InternalError frame, in the outcome when it
  // cannot be; empty for one of fewer steps), its steps left to the next run(), which serves the others between
  // two chunks as ever and returns once its last is taken (`long_done`), or cut at stop_after
  // (`long_at_stop_after`: the caller ends it with end_long_control(), which sends nothing); the outcome counts
  // it (`controls` 1) and its `long_steps`.
  HotPathOutcome start_chunks(std::uint64_t steps);
  // Applies, without a step, a Control of one of several controllers read into the control arrays and checked
  // by the caller (as for step_checked()): it waits for the others' Controls of the same step, which
  // step_applied() then takes. The outcome counts it (`controls` 1, its clamps; or the failure, `error_answers` 1
  // and the InternalError frame in `answer_frame`); reads before the step see its controls applied.
  HotPathOutcome apply_checked();
  // Takes `steps` steps (up to max_steps; 0: none) of the controls applied (apply_checked(), a round's Controls),
  // from a state the caller settled, and reads the state: as step_checked() without applying, the outcome counting
  // the steps and no Control (`controls` 0).
  HotPathOutcome step_applied(std::uint64_t steps);
  // As start_chunks() without applying: a round of more than StepChunks::kFirst `steps` whose Controls
  // apply_checked() applied, its steps left to the next run() (`controls` 0, `long_steps`; empty for fewer steps).
  HotPathOutcome start_applied_chunks(std::uint64_t steps);

  // Answers the Control of many steps in progress (if one is; a round's:
  // each of its Controls; none of one the caller answers) with SessionEnded
  // and `text`, and publishes that answer; whether one was.
  bool end_long_control(Server& server, const std::string& text);
  // Sends the paced answer held for its time (if one is; a round's: to each of its Controls) now, and publishes
  // it; whether one was.
  bool send_held(Server& server);
  // Whether a Control of many steps is in progress (the next run() goes on with it).
  bool has_long_control() const noexcept { return long_.has_value(); }
  // Holds `frame`, the caller's answer to `request` (a lone controller's Control run() handed back, whose images
  // the caller rendered), stepped to `time` seconds, as run() holds its own: the next run() (paced) sends it once
  // due, serving the others meanwhile, and publishes it then (the caller published the Control and the state);
  // send_held() sends it at once. Its frame must be a SensorMessage's. Throws Error while an answer is held or a
  // Control of many steps is in progress, and for a request that came through the shared channel (its client
  // waits there, where nothing can be held).
  void hold(Request request, std::string frame, double time);

  // From now on, publishes what the Python path's observer publishes for
  // each Control answered, in its order: the Control, the state after the
  // step (when `state` names the simulation's arrays; a simulation without
  // them has none), then the answer, each after the answer has been sent;
  // and for each read (unless traced, when the caller serves reads): the
  // request, then the answer, without a simulated time.
  // `publisher` (and the arrays) must outlive the HotPath.
  void publish_to(FramePublisher& publisher, std::optional<MujocoStateArrays> state);

  // From now on (until called with nullptr), run() for a lone controller
  // also takes that controller's plain Controls and reads through `channel`
  // (leased to it), answering them there. A futex cannot be polled with a
  // socket: run() sleeps on the channel and looks at the socket, without
  // waiting, at least every kSocketEvery, so readers, newcomers and the
  // caller's requests still get through (asleep in between: no spinning).
  // A Control or read asking for images through the channel is handed back
  // as Request::from_channel, for the caller to answer through the channel;
  // any other request through the channel the hot path would hand back is
  // answered there with an empty frame (nothing applied): its client sends it
  // again through the socket (SessionOptions::shared_channel).
  void serve_channel(SharedChannelServer* channel) noexcept { channel_ = channel; }
  static constexpr std::chrono::milliseconds kSocketEvery{10};

  ~HotPath();
  HotPath(const HotPath&) = delete;
  HotPath& operator=(const HotPath&) = delete;

  const HotPathConfig& config() const noexcept { return config_; }

 private:
  HotPathOutcome serve_controllers(Server& server, const std::vector<HotPathController>& controllers,
                                   ControlRounds* rounds, std::chrono::milliseconds return_after,
                                   std::uint64_t steps_before, std::optional<HotPathPacing> pacing, bool starting,
                                   std::optional<Request> first);
  // Applies the Control read into the arrays, steps, reads and encodes the
  // state: the answer, or the InternalError frame when the simulation fails.
  std::string serve(std::uint64_t steps, HotPathOutcome& outcome);
  // Reads a Control frame of the controller that the plain reader leaves (another encoding) into the control
  // arrays through the full decoder and ControlLayout::read, as the caller would: false, having written nothing,
  // for any other frame, one the layout refuses, one asking for images or for more than max_steps steps.
  bool read_decoded(std::string_view payload, std::uint64_t& steps);
  // The two halves of serve(): false (and the failure in the outcome) when the simulation failed.
  bool apply(HotPathOutcome& outcome);
  std::string step(std::uint64_t steps, HotPathOutcome& outcome);
  // The state read and encoded now, its time in `outcome`; empty, with the failure in `outcome`, when it cannot be.
  std::string read_state(HotPathOutcome& outcome);
  // `outcome` answered with `frame`, or with the InternalError frame of its failure (counted as an error answer).
  static HotPathOutcome& answered(std::string frame, HotPathOutcome& outcome);
  // The frame answering a SensorRequest now: the last state sent, or the state read and encoded.
  const std::string& state_frame();

  // A Control of many steps (a lone controller's, or a round's), taken in chunks across calls to run().
  struct LongControl {
    std::vector<Request> requests;  // answered after its last step
    bool round = false;
    std::uint64_t steps = 0;  // asked for
    std::uint64_t last = 0;   // taken before it ends: `steps`, or fewer where stop_after is reached
    std::uint64_t taken = 0;
    StepChunks chunks;
    // Until when what waits is served before the next chunk (not at all while it is the epoch).
    std::chrono::steady_clock::time_point serve_until{};
    // It starts a paced run, from this simulated time: the run starts, and its clock is anchored, after its last step.
    std::optional<double> starts_from;
    // The caller answers it (start_chunks()): no request waits here, and run() returns after its last step.
    bool caller_answers = false;
  };
  std::optional<LongControl> long_;
  // start_chunks() and start_applied_chunks(): with `apply_first`, the Control in the control arrays is applied.
  HotPathOutcome begin_chunks(std::uint64_t steps, bool apply_first);
  // The steps of a Control of `steps` taken before the one reaching stop_after (all of them when none does).
  std::uint64_t steps_before_stop(std::uint64_t steps) const;
  // What one answered Control leaves to publish once its answer is sent.
  struct Published {
    std::string request;
    std::int64_t request_wall_ns = 0;
    std::string answer;
    bool stepped = false;
    std::uint64_t step = 0;
    double time = 0.0;
  };
  // A paced answer held until its time, across calls to run(), while others are served: a lone controller's, or
  // the same answer to each Control of a round.
  struct HeldAnswer {
    std::vector<Request> requests;
    std::string frame;
    double time = 0.0;  // the simulated time it stepped to, when it is due
    Published exchange;  // with a publisher: what to publish once it is sent (a lone controller's)
    bool round = false;
  };
  std::optional<HeldAnswer> held_;
  // Sends the held answer to each of its requests and publishes it, as the Python path does once it is sent.
  void reply_held(Server& server);
  // Queues what `exchange` publishes; flush_published() hands the queue to
  // the publisher, at most kPublishEvery after the first queued message and
  // before run() returns. A burst wakes the publisher's I/O thread and each
  // subscriber once, where a message at a time would wake them per message,
  // on the cores the controller and the server need.
  void publish(Published& exchange);  // takes the exchange's frames
  // Its two halves: the Control and the state after its step; the answer.
  void publish_taken(Published& exchange);
  void publish_answer(Published& exchange);
  void publish_read(std::string_view request, const std::string& answer);
  void queue_published(std::string_view topic, std::string payload, std::int64_t wall_ns, std::int64_t simulated_ns);
  void flush_published();
  struct Pending {
    std::string_view topic;
    std::string payload;
    std::int64_t wall_ns = 0;
    std::int64_t simulated_ns = 0;
  };
  static constexpr std::chrono::microseconds kPublishEvery{2000};

  const ControlLayout& controls_;
  ControlTargets targets_;
  SensorLayout& sensors_;
  double* sensor_values_;
  const ControlScatter& scatter_;
  const SensorGather& gather_;
  Stepper& stepper_;
  HotPathConfig config_;
  std::unique_ptr<detail::ControlFrameReader> reader_;
  std::vector<bool> clamped_before_;
  // The encoded current state; empty when it must be read again.
  std::string state_;
  FramePublisher* publisher_ = nullptr;
  std::optional<MujocoStateArrays> mujoco_state_;
  std::string mujoco_state_bytes_;  // reused: no allocation per state once it has grown
  std::vector<Pending> pending_;
  std::chrono::steady_clock::time_point publish_due_{};
  SharedChannelServer* channel_ = nullptr;
};

}  // namespace coupler
