"""Serving a simulation: the protocol state machine (`simulation_server`),
controller sessions and leases, the control check, the lockstep and free-run
loops with their pacing, the responders over the C++ server, the server
application (`app`), and `ServeProcess`, which runs it as a subprocess.
Builds on `transport`; knows nothing of MuJoCo."""
