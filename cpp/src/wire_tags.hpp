#pragma once
// The one check protobuf's C++ parser leaves out and its Python runtime makes.

#include <string_view>

#include <google/protobuf/descriptor.h>

namespace coupler::detail {

// Whether every field tag the parser of `type` reads in `frame` fits 32 bits.
// protobuf's C++ parser reads a five-byte tag whose value is wider by
// dropping the high bits, where the Python runtime (upb) refuses the frame;
// refusing such frames here keeps both codecs taking the same frames.
// Anything else that is wrong with the frame is left to the parser: this
// returns true for it.
bool tags_fit(std::string_view frame, const google::protobuf::Descriptor& type);

}  // namespace coupler::detail
