#pragma once
// One codec for every message kind: Message values <-> wire frames.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/wire/error.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {

// Serializes deterministically (map entries sorted by key), so equal messages
// give equal frames in C++ and Python alike.
std::string encode(const Message& message);

// The images field of a SensorMessage alone: appended to a SensorMessage
// frame (of no images), it makes the frame of that message with these images,
// byte for byte as encode() writes it (the images come last in field order).
std::string encode_image_fields(const std::vector<Image>& images);

// Reads the message type from field 1, then the whole frame as that kind.
// Throws ProtocolError naming the problem for anything that is not a valid
// message.
Message decode(std::string_view frame);

// The kind of message a frame holds, read from field 1 as decode() reads it
// (the last one wins) without decoding the rest: its fields are skipped, not
// parsed; without field 1, a HandshakeInit, as decode() reads it (an empty
// frame too). nullopt for a frame of an unknown kind or whose top level is
// malformed: decode() then says what is wrong.
std::optional<MessageType> message_kind(std::string_view frame);

// decode(), then throws ProtocolError (UnexpectedMessage) unless the frame
// holds a T.
template <class T>
T decode_as(std::string_view frame) {
  Message message = decode(frame);
  if (T* typed = std::get_if<T>(&message)) return std::move(*typed);
  throw ProtocolError(ErrorCode::UnexpectedMessage,
                      "expected " + std::string(to_string(type_of(Message(std::in_place_type<T>)))) + " but got " +
                          std::string(to_string(type_of(message))));
}

}  // namespace coupler

namespace coupler {

// The message as one line of protobuf text format, for traces and logs.
std::string describe(const Message& message);

}  // namespace coupler
