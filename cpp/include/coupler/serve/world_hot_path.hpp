#pragma once
// The round trip of a lone controller driving every world of a batched
// server (the "worlds" extension), served without leaving C++: its Control
// for every world is received, checked, scattered into the worlds, stepped
// and read by WorldSteps (which resets the worlds it lists instead), encoded
// by encode_world_answer (through the shared-memory ring when it asked) and
// answered, over and over. Only the common case is served here: a Control
// with values for every world or none (one that steps no world: it resets
// those it lists, if any, and reads every world), asking for no image and
// no more than max_steps steps, with values that are finite and that every
// world's scatter takes, and resets when the worlds can be reset here; one
// that world_control_problem finds wrong is never served here.
// Everything else (images, any other request, a Control that does not
// match, a value MuJoCo cannot take, a mocap body's zero quaternion)
// goes back to the caller, which owns the control plane and every refusal's
// text, untouched. With a publisher (publish_to), it publishes what the
// caller's observer would for each Control it answers. Traced, it returns
// after each Control it answers with its frames, which the caller logs.
// Paced, each answer waits for its time (answer_pacing.hpp). A Control of
// more than StepChunks::kFirst steps is taken in chunks (step_chunks.hpp),
// as HotPath takes a single world's: any request that arrives between two
// chunks goes back to the caller with the Control still in progress (the
// next run() goes on with it; the caller refuses requests to drive
// meanwhile), or end_long_control() ends it (a stop).
//
// A Control for every world that goes back to the caller (one asking for
// images, a newcomer's) is checked there, then applied, stepped and read by
// step_control() as run() would; the caller renders its images and answers.
// One of more than StepChunks::kFirst steps is applied by start_chunks(), and
// the next run() takes its chunks as its own, returning once its last is
// taken for the caller to answer it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <coupler/serve/answer_pacing.hpp>
#include <coupler/serve/hot_path.hpp>
#include <coupler/serve/mujoco_state.hpp>
#include <coupler/serve/step_chunks.hpp>
#include <coupler/serve/world_control_check.hpp>
#include <coupler/serve/world_steps.hpp>
#include <coupler/transport/frame_publisher.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

struct WorldHotPathConfig {
  // Controls asking for more steps than this go back to the caller, which refuses those beyond the cap. Those of
  // more than StepChunks::kFirst steps and at most this are taken in chunks.
  std::uint64_t max_steps = HotPathConfig::kDefaultMaxSteps;
  // Return after answering a Control that stepped world 0 to this time (seconds) or later; a Control of many
  // steps stops at the step reaching it (given time_step), for the caller to end.
  double stop_after = std::numeric_limits<double>::infinity();
  // Seconds of stepping per chunk of a Control of many steps.
  double chunk_seconds = StepChunks::kSeconds;
  // Every exchange is to be logged (coupler serve --trace), as HotPathConfig::trace: run() returns after each
  // Control it answers, with its frames in the outcome, so that the caller logs it in its turn.
  bool trace = false;
  // Seconds of simulated time a step takes: paced, the Control that starts a run anchors its clock this many
  // seconds per step before world 0's time after it; a Control of many steps stops at stop_after by it (0: it
  // takes them all).
  double time_step = 0.0;
};

// The caller's arrays, which the worlds are served from and into, written in place (they must outlive the
// WorldHotPath).
struct WorldHotPathArrays {
  double* values = nullptr;             // count x value_count: the last Control's values
  std::uint8_t* events_on = nullptr;    // count x event_count: its events
  double* sensors = nullptr;            // count x sensor_width: the last answer's readings
  double* times = nullptr;              // count
  double* data = nullptr;               // count x data_width (may be null when data_width is 0)
};

// What run() did, and the request it hands back, if any.
struct WorldHotPathOutcome {
  // A request run() did not serve, to be served by the caller as if it had just arrived (nothing of it was
  // applied).
  std::optional<Request> request;
  std::uint64_t controls = 0;  // Controls answered
  std::uint64_t steps = 0;     // steps they took (each world)
  std::uint64_t resets = 0;    // worlds they reset
  // Values clamped by the Controls before the last one answered.
  std::uint64_t clamped = 0;
  // The (world, value index) pairs the last Control answered clamped, when one of them was clamped for the first
  // time since this WorldHotPath was made (run() returned after it: its values are still in the arrays); those
  // of a Control that clamped nothing new are counted in `clamped`.
  std::vector<std::pair<std::size_t, std::size_t>> last_clamped;
  // World 0's time after the last Control answered.
  std::optional<double> simulated_time;
  // The sizes of the last Control answered and of its answer, in bytes.
  std::size_t request_bytes = 0;
  std::size_t answer_bytes = 0;
  // With WorldHotPathConfig::trace: the Control answered and its answer, as sent.
  std::string request_frame;
  std::string answer_frame;
  // How long ago the last Control answered arrived.
  std::chrono::steady_clock::duration since_last_control{};
  // Set when the worlds failed on a Control, which was answered with InternalError: their states are unknown.
  std::string failure;
  // Run with `starting`: a Control was stepped and answered, which started the run. Paced, the run's clock was
  // anchored then, at the time that Control stepped from.
  bool started = false;
  // Paced: Controls answered later than late_after past their time, in this run; the run's clock counts them too.
  std::uint64_t deadlines_missed = 0;
  // Paced: the answer to the last Control taken (counted in `controls` and `steps`) waits for its time when
  // run() returned; the next run() sends it when due, send_held() at once.
  bool answer_held = false;
  // A Control of many steps in progress when run() returned (counted in `controls`, `steps` and `resets` when it
  // was taken; the next run() goes on with it, or end_long_control() ends it): the steps it asks for and those
  // taken; both 0 when none is.
  std::uint64_t long_steps = 0;
  std::uint64_t long_taken = 0;
  // It stopped at the step reaching stop_after, unanswered: the caller ends it (end_long_control()).
  bool long_at_stop_after = false;
  // The worlds failed during a Control of many steps (counted in `controls` when it was taken).
  bool long_failed = false;
  // The Control of many steps the caller answers (start_chunks()) took its last step in this run: the answer's
  // arrays are written, for the caller to make and send it (it failed: `long_failed`; cut at stop_after: it is
  // still in progress, `long_at_stop_after`).
  bool long_done = false;
};

class WorldHotPath {
 public:
  // `worlds` steps the batch. Every argument must outlive the WorldHotPath.
  WorldHotPath(WorldSteps& worlds, WorldHotPathArrays arrays, std::size_t data_width, WorldHotPathConfig config = {});

  // Answers the Controls for every world of `peer` that `server` receives until a request needs the caller
  // (handed back), `return_after` has passed, a Control stepped world 0 to stop_after, a value was clamped for
  // the first time or the worlds failed. Answers go through `ring` (may be null) when a Control asks for it.
  // With `starting`, the run waits for its first Control (after a handshake or a reset): the first Control taken
  // starts it (the outcome says so). `steps_before`: the steps the server took before this call, which number the
  // published states. With `sizes_logged` (coupler serve --trace-sizes: the sizes of the exchange the caller
  // logged last), it returns after a Control whose sizes differ from those of the exchange before it, so that
  // the caller logs every change. With `pacing` (coupler serve --realtime), each answer waits for its time on
  // the caller's clock (pacing.clock, answer_pacing.hpp); one due later than longest_hold is held while every
  // other request goes back to the caller (the answer still held: the next run() sends it when due), and the
  // first Control of a run anchors that clock. The caller guarantees that `peer` alone drives the worlds.
  WorldHotPathOutcome run(Server& server, const std::string& peer, std::chrono::milliseconds return_after,
                          SharedRingWriter* ring = nullptr, bool starting = false, std::uint64_t steps_before = 0,
                          std::optional<std::pair<std::size_t, std::size_t>> sizes_logged = std::nullopt,
                          std::optional<HotPathPacing> pacing = std::nullopt);
  // Applies, steps and reads the Control for every world `payload` as run() serves one, without answering it: the
  // caller, which checked it (and the images it asks for, which it renders), answers from the arrays. The outcome
  // counts it (its failure said there); nullopt, nothing applied, when it does not match the handshake (the
  // caller names the problem). Every step is taken at once: under a loop, the caller gives one of more than
  // StepChunks::kFirst steps to start_chunks() instead. The caller checked its images, and its values as run()
  // checks them (WorldSteps::check). No Control may be in progress here (a held answer, one of many steps);
  // `payload`'s controller alone drives the worlds.
  std::optional<WorldHotPathOutcome> step_control(std::string_view payload);
  // The same for such a Control of more than StepChunks::kFirst steps, taken in chunks as run() takes its own, for
  // the caller to answer: applied, its steps left to the next run(), which hands back what arrives between two
  // chunks as ever and returns once its last is taken (`long_done`), or cut at stop_after (`long_at_stop_after`:
  // the caller ends it with end_long_control(), which sends nothing); the outcome counts it (`controls` 1, its
  // `steps` and `resets`, as run() counts one of many steps when it takes it) and its `long_steps`. nullopt,
  // nothing applied, when step_control() would refuse it, or it has too few steps to take in chunks.
  std::optional<WorldHotPathOutcome> start_chunks(std::string_view payload);
  // Sends the paced answer held for its time (if one is) now, and publishes it; whether one was.
  bool send_held(Server& server);
  // Holds `frame`, the caller's answer to `request` (a Control run() handed back, whose images the caller
  // rendered), world 0 stepped to `time` seconds, as run() holds its own: the next run() (paced) sends it once
  // due and publishes it then (the caller published the Control and the states); send_held() sends it at once.
  // Its frame must be a SensorMessage's. Throws Error while a Control is in progress (a held answer, one of many
  // steps), and for a request that came through the shared channel.
  void hold(Request request, std::string frame, double time);
  // Answers the Control of many steps in progress (if one is; not one the caller answers) with SessionEnded and
  // `text`, and publishes that answer; whether one was.
  bool end_long_control(Server& server, const std::string& text);

  // From now on, publishes what the caller's observer publishes for each
  // Control answered, in its order, once its answer has been sent: the
  // Control, every world's state after the step (`states`: every world's
  // mjData arrays, in world order; world 0's stamped with its simulated
  // time), then the answer; for a Control the worlds failed on, the Control
  // and the error. `publisher` and the arrays must outlive the WorldHotPath.
  void publish_to(FramePublisher& publisher, std::vector<MujocoStateArrays> states);

  const WorldHotPathConfig& config() const noexcept { return config_; }

 private:
  // The answer to `payload` when it is a Control this path serves; nullopt to hand it back (or, for one of many
  // steps, applied, to take it in chunks once the server hands its request over: long_ says so).
  std::optional<std::string> serve(std::string_view payload, SharedRingWriter* ring, WorldHotPathOutcome& outcome);
  // `payload` decoded when it is a Control this path takes (`checked`: whatever images it asks for and values it
  // carries, which the caller checked); nullopt to hand it back, nothing of it applied.
  std::optional<ControlMessage> taken(std::string_view payload, bool checked);
  // Applies `control` (taken): its values and events into the arrays, its worlds to reset noted; the steps it
  // takes (steps_taken). `in_chunks`, one of more than StepChunks::kFirst is kept in long_, to be taken in chunks.
  std::uint64_t apply(ControlMessage& control, bool in_chunks);
  // The steps every world it does not reset takes: 0 for a Control with no values, which steps no world (it resets
  // those it lists and reads them all), else its steps, at least 1.
  static std::uint64_t steps_taken(const ControlMessage& control) noexcept;
  // Steps the Control applied (`steps`, not in chunks) and counts it in `outcome`: false when the worlds failed.
  bool step_applied(std::uint64_t steps, std::size_t resets, WorldHotPathOutcome& outcome);
  // Takes `steps` of the Control applied (resetting its worlds first, with `resets`) and reads every world;
  // false (the failure in the outcome) when the worlds failed. Notes the values clamped, `first_chunk` of a
  // Control (later chunks scatter the same values).
  bool step(std::uint64_t steps, bool resets, bool first_chunk, WorldHotPathOutcome& outcome);
  // The answer to a Control from the arrays, through `ring` when given.
  std::string answer_frame(SharedRingWriter* ring) const;
  // Publishes a Control answered with `answer`, received at `received_ns`: `stepped` (answered with the worlds'
  // readings, not an error), after its steps numbered `step`, every world's state too when it took `states`.
  void publish(std::string_view request, std::int64_t received_ns, const std::string& answer, bool stepped,
               bool states, std::uint64_t step);
  // Its two halves: the Control and (stepped) every world's state after its steps; the answer, once sent.
  void publish_taken(std::string_view request, std::int64_t received_ns, bool stepped, std::uint64_t step);
  void publish_answer(const std::string& answer, bool stepped, double time);

  // A paced answer held until its time, across calls to run(), while every other request goes to the caller.
  struct HeldAnswer {
    Request request;
    std::string frame;
    double time = 0.0;  // world 0's time it stepped to, when it is due
  };
  std::optional<HeldAnswer> held_;
  // A Control of many steps, taken in chunks across calls to run() (as HotPath takes a single world's).
  struct LongControl {
    std::optional<Request> request;  // answered after its last step; empty until the server hands it over
    std::uint64_t steps = 0;         // asked for
    std::uint64_t last = 0;          // taken before it ends: `steps`, or fewer where stop_after is reached
    std::uint64_t taken = 0;
    std::uint64_t resets = 0;        // worlds it resets, with its first chunk
    bool shared_memory = false;      // its answer goes through the ring
    StepChunks chunks;
    std::vector<double> reset_qpos;  // the states it gives its reset worlds, kept until its first chunk
    std::vector<double> reset_qvel;
    std::string request_frame;       // with a publisher, the Control as received, and when
    std::int64_t received_ns = 0;
    bool caller_answers = false;     // start_chunks(): no request waits here, and run() returns after its last step
  };
  std::optional<LongControl> long_;
  // long_ is being taken: handed over by the server, or the caller's to answer.
  bool long_taken() const noexcept { return long_ && (long_->request || long_->caller_answers); }
  // The steps of a Control of `steps` taken before the one taking world 0 to stop_after (all when none does).
  std::uint64_t steps_before_stop(std::uint64_t steps) const;

  WorldSteps& worlds_;
  WorldHotPathArrays arrays_;
  std::size_t data_width_ = 0;
  WorldHotPathConfig config_;
  std::vector<std::uint8_t> step_;            // the worlds a Control steps: all but those it resets
  std::vector<std::uint8_t> reset_;           // the worlds it resets
  std::vector<const double*> reset_qpos_;     // their states given, into the Control (null: the start state's)
  std::vector<const double*> reset_qvel_;
  std::vector<double> taken_;                 // a Control's values, checked before they replace the arrays'
  std::vector<bool> clamped_before_;          // count x value_count
  FramePublisher* publisher_ = nullptr;
  std::vector<MujocoStateArrays> states_;     // every world's, to publish
  std::string state_bytes_;                   // reused: no allocation per state once it has grown
};

}  // namespace coupler
