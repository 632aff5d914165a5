"""The server answers the serving vectors' session (tests/vectors/serve/) byte for byte."""

from __future__ import annotations

from peers import address_for, coupler_server
from tests.vectors.serve.make_serve_vectors import SCENE, read_session, replay, with_version


def test_the_server_answers_every_request_of_the_static_scenes_session_as_the_vectors_say(tmp_path):
    exchanges = list(read_session())
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", SCENE):
        answers = replay(address, [request for request, _ in exchanges])
    for i, ((request, expected), answer) in enumerate(zip(exchanges, answers, strict=True)):
        # The handshake names the package's release; the vectors name release "0".
        assert with_version(answer, "0") == expected, f"answer {i} to {request!r} differs"
