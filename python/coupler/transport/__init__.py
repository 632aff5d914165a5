"""Connections: the C++ `Client` and `Server`, bound, one
`TransportOptions` type (heartbeats, frame limit, CurveZMQ) with its
command-line flags, CURVE key files and the bind policy. Builds on `wire`."""
