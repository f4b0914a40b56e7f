"""kombu's filesystem broker (`make run`), writing each message whole or not at all.

The stock transport opens `<name>.msg` and writes into it: on a full disk that leaves an
empty or truncated message, which a worker then takes and cannot read. Here a message is
written under a temporary name that consumers ignore and renamed into place once complete;
a failed write removes it and raises kombu's ChannelError, so the sender sees a clear error
(a submit is still saved; the sweeper sends its job again). A folder that is gone (`rm -rf
var` while the site serves) is the same ChannelError when a sender counts the queue's
messages, as every send declares its queue first, never a bare OSError (a 500).
"""

import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu's stubs give filesystem.Channel._put a signature its own base class does not.
    def _put(self, queue: str, message: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Put `message` onto `queue` atomically (write a temporary file, then rename)."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".partial-{name}.tmp")
        try:
            with open(partial, "wb", buffering=0) as file:
                file.write(str_to_bytes(dumps(message)))
                os.fsync(file.fileno())
            os.replace(partial, final)
        except OSError as error:
            if os.path.exists(partial):
                os.remove(partial)
            raise ChannelError(
                f"Cannot add a message to {self.data_folder_out!r}: {error}"
            ) from error

    def _size(self, queue: str) -> int:
        """How many messages wait on `queue`; ChannelError when the folder cannot be read."""
        try:
            return int(super()._size(queue))
        except OSError as error:
            raise ChannelError(
                f"Cannot read the broker folder {self.data_folder_in!r}: {error}"
            ) from error


class Transport(filesystem.Transport):
    Channel = Channel
