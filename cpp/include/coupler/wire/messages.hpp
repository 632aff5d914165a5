#pragma once
// The protocol's messages as plain C++ values.
//
// Each message kind is a struct; coupler/codec.hpp turns them into wire
// frames and back. User code never touches generated protobuf types. Field
// names match the Python package's.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <coupler/wire/types.hpp>

namespace coupler {

struct HandshakeInitMessage {
  int version = kProtocolVersion;
  // coupler extension "shm": lease the server's shared channel (coupler/transport/shared_channel.hpp).
  bool shared_channel = false;
};

// The coupler extensions a server announces by name in its handshake
// (ServerInfo::extensions); a client uses one only when it is announced.
inline constexpr const char* kExtensionSteps = "steps";      // ControlMessage::steps
inline constexpr const char* kExtensionGoodbye = "goodbye";  // a leaving controller's SessionEnded, taken without answer
inline constexpr const char* kExtensionRanges = "ranges";    // ObjectDescription control_ranges, joint_limits
// Value types from 100 (LinearPosition ... Number); a Click peer keeps them as unknown numbers.
inline constexpr const char* kExtensionValueTypes = "value-types";
// One Control and one Sensor for every world of a batched server at once (HandshakeMessage::worlds).
inline constexpr const char* kExtensionWorlds = "worlds";
// Mocap bodies as controls of types MocapPosition and MocapQuaternion.
inline constexpr const char* kExtensionMocap = "mocap";
// The model's keyframes in the handshake (HandshakeMessage::keyframes); a Reset to one of them.
inline constexpr const char* kExtensionKeyframes = "keyframes";
// Cameras in the handshake (HandshakeMessage::cameras); images asked for by a Control or a SensorRequest.
inline constexpr const char* kExtensionImages = "images";
// HandshakeMessage::shared_memory; Image::shared, asked for by a Control or SensorRequest's shared_memory.
inline constexpr const char* kExtensionSharedMemory = "shm";

// coupler extension "images": one camera of the scene. Pixel (u, v), u to the
// right and v down from the top-left pixel's centre, sees the point (x, y, z)
// of the camera's frame (x right, y up, looking along -z) at
// u = cx + fx x / -z, v = cy - fy y / -z.
struct CameraDescription {
  std::string name;
  std::uint32_t width = 0;   // pixels
  std::uint32_t height = 0;  // pixels
  std::vector<std::string> kinds;  // "rgb", "depth", "segmentation"
  double fx = 0.0, fy = 0.0, cx = 0.0, cy = 0.0;  // pixels
  double near = 0.0, far = 0.0;  // m along the optical axis
  std::string body;  // the body it is mounted on
  std::vector<double> position;    // m, in the body's frame
  std::vector<double> quaternion;  // w, x, y, z, in the body's frame
};

// coupler extension "images": which images of one camera an answer carries;
// with `every`, only when the step it reports is a multiple of that many steps.
struct ImageRequest {
  std::string camera;
  std::vector<std::string> kinds;
  std::optional<std::uint32_t> every = std::nullopt;
};

// coupler extension "images": one rendered image, rows from the top down:
// "rgb" 3 bytes per pixel, "depth" float32 metres along the optical axis,
// "segmentation" int32 geom ids (-1: none), little-endian.
// coupler extension "shm": where a payload lies in the announced ring: buffer
// `slot`, written as `sequence`, `length` bytes from `offset` in that buffer.
struct SharedSlice {
  std::uint32_t slot = 0;
  std::uint64_t sequence = 0;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

struct Image {
  std::string camera;
  std::string kind;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  double time = 0.0;  // s
  std::string data;
  // coupler extension "shm": the pixels lie in the shared memory there instead of in data.
  std::optional<SharedSlice> shared = std::nullopt;
};

// coupler extension "shm": a ring of `slots` buffers of `slot_bytes` bytes in
// one file only the server's user can open (`path`, /proc/PID/fd/N of a
// memfd); buffer i's data from `data_offset` + i slot_bytes. An answer's
// payloads that reach `min_bytes` together travel in one buffer.
struct SharedMemoryRing {
  std::string path;
  std::uint32_t slots = 0;
  std::uint64_t slot_bytes = 0;
  std::uint64_t data_offset = 0;
  std::uint64_t min_bytes = 0;
};

// A closed interval [min, max]; limited false means unlimited (min and max
// then mean nothing).
struct Range {
  double min = 0.0;
  double max = 0.0;
  bool limited = false;
};

// Who serves (a coupler extension of the handshake), and which extensions it takes.
struct ServerInfo {
  std::string name;
  std::string version;
  std::vector<std::string> extensions;
};

// One robot or object of a scene, as the handshake describes it.
struct ObjectDescription {
  std::vector<std::string> controls;          // order of ControlMessage values
  std::vector<ValueType> control_types;       // one per control
  std::vector<std::string> joint_sensors;     // order of per-joint sensor values
  std::vector<ValueType> joint_sensor_types;  // which per-joint vectors are sent
  std::map<std::string, ValueType> control_events;
  std::map<std::string, std::vector<ValueType>> sensors;  // named sensors
  std::vector<ValueType> object_sensors;
  std::vector<std::string> control_targets;   // coupler extension: what each control drives; may be empty
  // coupler extension "ranges": one per control (in the units the controller
  // sends) and one per joint sensor; empty from a server without it.
  std::vector<Range> control_ranges;
  std::vector<Range> joint_limits;
  // coupler extension "value-types": per named sensor with Number readings, their unit.
  std::map<std::string, std::string> sensor_units;
  // coupler extension "value-types": per joint sensor, joint after joint, the types of its readings
  // (a slide's LinearPosition, LinearVelocity, Force1D); empty: joint_sensor_types for every joint.
  std::vector<ValueType> joint_types;
  // coupler extension "value-types": per control, what an ActuatorInput value goes through; may be empty.
  std::vector<std::string> control_meanings;

  // The types of joint sensor `joint`'s readings: its joint_types, or joint_sensor_types without them.
  std::vector<ValueType> types_of_joint(std::size_t joint) const;
};

struct HandshakeMessage {
  std::map<std::string, ObjectDescription> objects;
  double time_step = 0.0;  // s
  int version = kProtocolVersion;
  // Deprecated scene-wide type; nullopt derives it when encoding (the common
  // type of all controls, or Multiple).
  std::optional<ValueType> control_type;
  // coupler extension: nullopt from a Click server, which then takes plain Click v1 only.
  std::optional<ServerInfo> server;
  // coupler extension "worlds": how many copies of the scene the server steps (0: one, without the extension).
  std::uint32_t worlds = 0;
  // coupler extension "keyframes": the model's keyframes in index order ("" for an unnamed one).
  std::vector<std::string> keyframes;
  // coupler extension "images": the cameras images can be asked of, and the largest size a camera may have.
  std::vector<CameraDescription> cameras;
  std::uint32_t max_image_width = 0;
  std::uint32_t max_image_height = 0;
  // coupler extension "shm": the ring a client on the same host may map (nullopt: none offered).
  std::optional<SharedMemoryRing> shared_memory;
  // coupler extension "shm": the shared channel leased to the client that asked for it ("": none).
  std::string shared_channel;

  // Whether the server announced this coupler extension (never, for a Click server).
  bool supports(const std::string& extension) const;

  // Throws coupler::Error naming the object when the scene has no such object.
  const ObjectDescription& object(const std::string& name) const;
};

// Which list of a control object carries its values on the wire. Values is
// current; the others are Click's deprecated single-type spellings, kept so
// such frames re-encode unchanged.
enum class ControlField { Values, Angles, AngularVelocities, Torques };

struct ObjectControl {
  std::vector<double> values;           // one per control, handshake order
  std::map<std::string, bool> events;   // a missing event keeps its last value
  ControlField field = ControlField::Values;
};

struct ControlMessage {
  class Builder;

  std::map<std::string, ObjectControl> objects;
  // coupler extension: hold the controls for this many steps; 0 means one.
  std::uint64_t steps = 0;
  // coupler extension "worlds": a Control for every world at once, for this
  // many worlds (0: an ordinary Control). Per world (world-major), its control
  // values in the control layout's order, then one number per control event
  // (nonzero: on); empty steps no world.
  std::uint32_t worlds = 0;
  std::vector<double> world_controls;
  // The worlds to reset (ascending, each once) instead of stepping them, to
  // one whole qpos (qvel) per world listed, or to the scene's initial state
  // when empty.
  std::vector<std::uint32_t> reset_worlds;
  std::vector<double> reset_qpos;
  std::vector<double> reset_qvel;
  // coupler extension "images": the answer carries these images of the state after the step.
  std::vector<ImageRequest> images;
  // coupler extension "shm": the answer's big payloads through the announced shared memory.
  bool shared_memory = false;
  // "worlds" and "images" together: the worlds whose images the answer to a
  // Control for every world carries (ascending); empty: every world.
  std::vector<std::uint32_t> image_worlds;

  // ControlMessage::builder().object("robot1").values({...}).event("gripper", true)
  static Builder builder();
};

class ControlMessage::Builder {
 public:
  // Selects the object that following values() and event() calls fill.
  Builder& object(const std::string& name);
  Builder& values(std::vector<double> values, ControlField field = ControlField::Values);
  Builder& event(const std::string& name, bool activated);
  Builder& steps(std::uint64_t steps);
  ControlMessage build() const { return message_; }
  operator ControlMessage() const { return message_; }  // NOLINT: builder converts implicitly

 private:
  ObjectControl& current();

  ControlMessage message_;
  std::string current_;
  bool has_current_ = false;
};

// One typed reading: 1 number for scalar and bool types, 3 for vector types.
struct Sensor {
  ValueType type = ValueType::Angle;
  std::vector<double> value;
};

struct ObjectSensors {
  std::vector<double> angles;              // per joint, handshake order
  std::vector<double> angular_velocities;  // per joint
  std::vector<double> torques;             // per joint
  std::vector<std::vector<double>> forces; // per joint, 3 numbers each
  std::vector<Sensor> object_sensors;      // handshake objectSensors order
  std::map<std::string, std::vector<Sensor>> sensors;

  // Throws coupler::Error naming the sensor when the object has no such sensor.
  const std::vector<Sensor>& sensor(const std::string& name) const;
};

struct SensorMessage {
  std::map<std::string, ObjectSensors> objects;
  double simulated_time = 0.0;  // s
  // coupler extension "worlds", the answer to a Control for every world: per
  // world (world-major), its readings in the sensor layout's order, and each
  // world's simulated time (s).
  std::vector<double> world_sensors;
  std::vector<double> world_times;
  // Per world (world-major), the MuJoCo arrays the server was asked to send
  // (`coupler serve --world-data`), each read right after the world's step.
  std::vector<double> world_data;
  // coupler extension "images": the images asked for, of the state above.
  std::vector<Image> images;
  // "worlds" and "images" together, the answer to a Control for every world
  // asking for images: per camera and kind, one Image whose data holds the
  // images of the worlds image_worlds lists, one after another (time unset).
  std::vector<Image> world_images;
  std::vector<std::uint32_t> image_worlds;
  // "worlds" and "shm" together: world_sensors and world_data lie in the shared memory there instead (float64,
  // world-major), and are then left empty.
  std::optional<SharedSlice> world_sensors_shared;
  std::optional<SharedSlice> world_data_shared;

  // Throws coupler::Error naming the object when the message has no such object.
  const ObjectSensors& object(const std::string& name) const;
};

struct SensorRequestMessage {
  // coupler extension "images": the answer carries these images.
  std::vector<ImageRequest> images;
  // coupler extension "shm": the answer's big payloads through the announced shared memory.
  bool shared_memory = false;
};
struct ResetMessage {
  // coupler extension: the state to start from after the reset (MuJoCo qpos
  // and qvel, complete); empty means the scene's own initial state.
  std::vector<double> qpos;
  std::vector<double> qvel;
  // coupler extension "keyframes": reset to this keyframe instead, by name or
  // by index (at most one); qpos and qvel, when given, replace its own.
  std::string keyframe;
  std::optional<std::uint32_t> keyframe_index;
};

struct ErrorMessage {
  int code = static_cast<int>(ErrorCode::VersionNotSupported);  // an ErrorCode, or a peer's own
  std::string text;
};

using Message = std::variant<HandshakeInitMessage, HandshakeMessage, ControlMessage, SensorMessage,
                             SensorRequestMessage, ResetMessage, ErrorMessage>;

MessageType type_of(const Message& message) noexcept;

}  // namespace coupler
