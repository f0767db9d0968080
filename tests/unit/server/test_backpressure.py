"""Why a connection stops reading, and the broker-wide request memory."""

from __future__ import annotations

import pytest

from odradek.config import load_config
from odradek.config.broker import ConfigError
from odradek.server.backpressure import Hold, ReadHolds, RequestMemory


class _Transport:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def pause_reading(self) -> None:
        self.calls.append("pause")

    def resume_reading(self) -> None:
        self.calls.append("resume")

    def is_closing(self) -> bool:
        return False


def test_reading_resumes_only_when_every_reason_is_gone() -> None:
    transport = _Transport()
    holds = ReadHolds()
    holds.attach(transport)  # type: ignore[arg-type]
    holds.hold(Hold.ANSWERS)
    holds.hold(Hold.QUEUE)
    holds.hold(Hold.ANSWERS)
    holds.release(Hold.ANSWERS)
    assert not holds.reading
    holds.release(Hold.QUEUE)
    holds.release(Hold.QUEUE)
    assert holds.reading
    assert transport.calls == ["pause", "resume"]


def test_a_hold_taken_before_the_transport_exists_applies_when_it_does() -> None:
    holds = ReadHolds()
    holds.hold(Hold.MEMORY)
    transport = _Transport()
    holds.attach(transport)  # type: ignore[arg-type]
    assert transport.calls == ["pause"]


def test_request_memory_grants_while_under_the_limit_and_wakes_waiters_in_order() -> None:
    memory = RequestMemory(100)
    assert memory.try_reserve(60)
    assert memory.try_reserve(60)  # under the limit when asked: granted, past it by one reservation
    assert not memory.try_reserve(1)
    woken: list[str] = []
    memory.wait(lambda: woken.append("first"))
    memory.wait(lambda: woken.append("second"))
    memory.release(10)
    assert woken == []  # 110 is still over the limit
    memory.release(60)
    assert woken == ["first", "second"]
    assert memory.used == 50


def test_a_waiter_wakes_once_and_a_forgotten_one_never() -> None:
    memory = RequestMemory(10)
    memory.try_reserve(10)
    woken: list[int] = []

    def wake() -> None:
        woken.append(1)

    def forgotten() -> None:
        woken.append(2)

    memory.wait(wake)
    memory.wait(forgotten)
    memory.forget(forgotten)
    memory.release(10)
    memory.try_reserve(5)
    memory.release(5)
    assert woken == [1]


@pytest.mark.parametrize("limit", [-1, 0])
def test_no_limit_grants_everything(limit: int) -> None:
    memory = RequestMemory(limit)
    assert all(memory.try_reserve(1 << 30) for _ in range(4))


def test_a_positive_limit_holds_at_least_one_whole_request_as_kafka_checks() -> None:
    assert load_config(None, ["queued.max.request.bytes=104857600"]).queued_max_request_bytes == 100 * 1024 * 1024
    assert load_config(None, ["queued.max.request.bytes=0"]).queued_max_request_bytes == 0
    with pytest.raises(ConfigError) as refused:
        load_config(None, ["queued.max.request.bytes=1000"])
    assert str(refused.value) == "queued.max.request.bytes must be larger or equal to socket.request.max.bytes"


def test_socket_buffers_are_set_on_the_listening_socket_and_inherited() -> None:
    import socket

    from odradek.server.backpressure import set_socket_buffers

    with socket.create_server(("127.0.0.1", 0)) as server:
        set_socket_buffers([server], 102400, 65536)
        with socket.create_connection(server.getsockname()):
            accepted, _ = server.accept()
            with accepted:
                # Linux doubles what it is given (bookkeeping); autotuning would go to megabytes.
                assert accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) == 2 * 102400
                assert accepted.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) == 2 * 65536
    with socket.create_server(("127.0.0.1", 0)) as untouched:
        before = untouched.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        set_socket_buffers([untouched], -1, -1)
        assert untouched.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) == before
