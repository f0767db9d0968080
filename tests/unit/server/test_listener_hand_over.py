"""An accepted socket whose hand-over to a connection is cancelled (the listener stopping) is closed
at once, not left to a transport's close that a stopping loop may never run (a ResourceWarning)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any, cast

import pytest

from odradek.server.connection import Dispatch, MayWait
from odradek.server.listener import Listener


def test_a_hand_over_cancelled_by_stop_closes_the_accepted_socket() -> None:
    async def scenario() -> int:
        loop = asyncio.get_running_loop()
        never: asyncio.Future[None] = loop.create_future()

        async def stuck(*args: Any, **kwargs: Any) -> None:
            await never

        loop.connect_accepted_socket = stuck  # type: ignore[method-assign]
        listener = Listener(cast(Dispatch, None), cast(MayWait, None), "127.0.0.1", 0, 1 << 20)
        accepted, peer = socket.socketpair()
        try:
            task = loop.create_task(listener._serve(accepted, None))
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return accepted.fileno()
        finally:
            peer.close()
            accepted.close()

    assert asyncio.run(scenario()) == -1
