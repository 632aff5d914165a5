"""MuJoCo behind the serving layer: the handshake derived from a compiled
model (`layout`), control scatter and sensor gather in C++ (`flat`), and the
`MujocoSimulation` the server steps. Needs the `sim` extra (`mujoco`)."""
