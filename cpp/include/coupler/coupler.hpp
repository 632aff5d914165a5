#pragma once
// Everything a controller or server needs, in one include.

#include <coupler/client.hpp>
#include <coupler/codec.hpp>
#include <coupler/error.hpp>
#include <coupler/messages.hpp>
#include <coupler/server.hpp>
#include <coupler/session.hpp>
#include <coupler/types.hpp>
