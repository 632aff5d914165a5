"""The wire: protocol messages (`messages`), their one codec (`codec`, the C++
library's), the "worlds" extension's frames as arrays (`world_frames`), errors,
and flat array layouts of Control and Sensor frames (`flat_layout`). Imports
nothing else of coupler but its native module."""
