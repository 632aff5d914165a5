"""For controller authors: `Session` (handshake, step, reset, reconnect),
`Controls`, `SensorReadings` and round-trip statistics. Builds on `transport`."""
