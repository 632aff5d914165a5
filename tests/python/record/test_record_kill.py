"""A server recording with --record and killed with SIGKILL leaves a file the mcap reader opens."""

import signal
import time

from mcap.reader import NonSeekingReader
from mcap.exceptions import McapError
from mcap_protobuf.decoder import DecoderFactory

from coupler.controller.session import Session
from coupler.serve.serve_process import ServeProcess
from peers import address_for


def test_a_recording_killed_with_sigkill_is_read_up_to_its_last_complete_chunk_and_every_message_decodes(tmp_path):
    address = address_for("ipc", tmp_path)
    recording = tmp_path / "run.mcap"
    with ServeProcess(["--scene", "arm", "--record", str(recording)], address=address) as server:
        with Session(address, timeout=5.0) as session:
            controls = session.controls()
            for _ in range(2000):
                session.step(controls)
        time.sleep(2.5)  # the recorder hands its open chunk to the file once a second
        server.send_signal(signal.SIGKILL)
        server.wait(10)

    decoder = DecoderFactory()
    decoded = 0
    with open(recording, "rb") as stream:
        try:
            for schema, channel, message in NonSeekingReader(stream).iter_messages(log_time_order=False):
                decode = decoder.decoder_for(channel.message_encoding, schema)
                decode(message.data)
                decoded += 1
        except McapError:
            pass  # the killed server's last chunk, if it was being written
    assert decoded > 2000
