"""The wire: protocol messages (`messages`), their one protobuf codec (`codec`),
errors, and flat array layouts of Control and Sensor frames (`flat_layout`).
Imports nothing else of coupler."""
