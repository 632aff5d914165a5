#pragma once
// Everything a controller or server needs, in one include.

#include <coupler/transport/client.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/serve/control_scatter.hpp>
#include <coupler/transport/curve_keys.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/frame_bytes.hpp>
#include <coupler/wire/limits.hpp>
#include <coupler/wire/messages.hpp>
#include <coupler/serve/sensor_gather.hpp>
#include <coupler/wire/sensor_layout.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_channel.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/controller/session.hpp>
#include <coupler/controller/world_session.hpp>
#include <coupler/wire/types.hpp>
#include <coupler/wire/version.hpp>
