"""Reading a coupler recording back, including one whose writer was killed.

A finished file is read through its index; a file without one (the server
was killed) is read from the start up to the last complete chunk.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass

from mcap.exceptions import McapError
from mcap.records import Attachment, Channel, Message, Metadata
from mcap.stream_reader import StreamReader

from coupler.record.channels import ANSWERS, REQUESTS, STATE_TOPIC

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recorded:
    """One recorded message, in the order it was written."""

    topic: str
    data: bytes
    log_time: int  # ns since the epoch, wall clock
    publish_time: int  # ns of simulated time where it applies, else the log time

    @property
    def request(self) -> bool:
        return self.topic.startswith(REQUESTS)

    @property
    def answer(self) -> bool:
        return self.topic.startswith(ANSWERS)

    @property
    def state(self) -> bool:
        return self.topic == STATE_TOPIC

    @property
    def kind(self) -> str:
        """HandshakeInit, Control, Sensor, ... (or mujoco_state)."""
        return self.topic.rsplit("/", 1)[-1]


class Recording:
    """A recording file: its messages in the order written, its metadata and attachments.

    `truncated` tells, after iterating, that the file ended inside a record
    (its writer was killed); everything before that point was read.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.truncated = False
        self.metadata: dict[str, dict[str, str]] = {}
        self.attachments: dict[str, bytes] = {}

    def __iter__(self) -> Iterator[Recorded]:
        with open(self.path, "rb") as stream:
            channels: dict[int, str] = {}
            try:
                for record in StreamReader(stream).records:  # file order, which is the order things happened
                    if isinstance(record, Metadata):
                        self.metadata[record.name] = dict(record.metadata)
                    elif isinstance(record, Attachment):
                        self.attachments[record.name] = bytes(record.data)
                    elif isinstance(record, Channel):
                        channels[record.id] = record.topic
                    elif isinstance(record, Message):
                        yield Recorded(channels[record.channel_id], bytes(record.data), record.log_time,
                                       record.publish_time)
            except McapError as error:
                self.truncated = True
                log.info("%s ends early (%s): read up to the last complete chunk", self.path, error)

    def read_headers(self) -> None:
        """Fill `metadata` and `attachments` (they come first in a coupler recording)."""
        for _ in self:
            pass
