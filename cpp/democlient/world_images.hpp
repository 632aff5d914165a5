#pragma once
// --worlds-images: one camera's images of every world of a batched server, through the "worlds" extension.

#include <string>

#include <coupler/controller/session.hpp>

// Connects to the batched server at `address`, asks `camera` for every kind it renders in every world without
// stepping any, and describes the answer: whether it came through shared memory, then per world its simulated
// time and, per kind, the picture's size and the FNV-1a 64 hash of its bytes (in hexadecimal). Throws
// coupler::Error for a server without worlds or without that camera.
std::string world_images(const std::string& address, const coupler::SessionOptions& options,
                         const std::string& camera);
