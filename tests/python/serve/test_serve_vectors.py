"""The server answers the serving vectors' sessions (tests/vectors/serve/) byte for byte."""

from __future__ import annotations

from peers import address_for, coupler_server
from tests.vectors.serve.make_serve_vectors import STATIC, WORLDS, Session, replay, with_version


def check_answers_as_recorded(session: Session, tmp_path) -> None:
    exchanges = list(session.read())
    address = address_for(session.transport, tmp_path)
    with coupler_server(address, *session.flags):
        answers = replay(address, [request for request, _ in exchanges])
    for i, ((request, expected), answer) in enumerate(zip(exchanges, answers, strict=True)):
        # The handshake names the package's release; the vectors name release "0".
        assert with_version(answer, "0") == expected, f"answer {i} to {request!r} differs"


def test_the_server_answers_every_request_of_the_static_scenes_session_as_the_vectors_say(tmp_path):
    check_answers_as_recorded(STATIC, tmp_path)


def test_a_batched_server_answers_every_request_of_the_worlds_session_as_the_vectors_say(tmp_path):
    check_answers_as_recorded(WORLDS, tmp_path)
