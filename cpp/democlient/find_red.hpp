#pragma once
// --find-red: where a camera sees red, through the "images" extension.

#include <string>

#include <coupler/controller/session.hpp>

// Asks `camera` for a colour and a depth image of the current state and
// describes where it sees red: the red pixels' centre (column, row), the
// depth there, and that point in the world (the camera's frame turned by its
// announced mounting pose; a camera on the world body). Throws
// coupler::Error when the camera sees no red.
std::string find_red(coupler::Session& session, const std::string& camera);
