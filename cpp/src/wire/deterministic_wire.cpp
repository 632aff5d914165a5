#include "wire/deterministic_wire.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace coupler::detail {

std::string serialize_deterministic(const google::protobuf::MessageLite& proto) {
  std::string frame(proto.ByteSizeLong(), '\0');
  google::protobuf::io::ArrayOutputStream array(frame.data(), static_cast<int>(frame.size()));
  google::protobuf::io::CodedOutputStream stream(&array);
  stream.SetSerializationDeterministic(true);
  proto.SerializeWithCachedSizes(&stream);
  return frame;
}

}  // namespace coupler::detail
