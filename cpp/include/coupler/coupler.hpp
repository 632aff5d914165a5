#pragma once
// Everything a controller or server needs, in one include.

#include <coupler/client.hpp>
#include <coupler/codec.hpp>
#include <coupler/control_layout.hpp>
#include <coupler/control_scatter.hpp>
#include <coupler/curve_keys.hpp>
#include <coupler/error.hpp>
#include <coupler/limits.hpp>
#include <coupler/messages.hpp>
#include <coupler/sensor_gather.hpp>
#include <coupler/sensor_layout.hpp>
#include <coupler/server.hpp>
#include <coupler/session.hpp>
#include <coupler/types.hpp>
