#include <coupler/wire/version.hpp>

namespace coupler {

const char* version() { return COUPLER_VERSION; }

}  // namespace coupler
