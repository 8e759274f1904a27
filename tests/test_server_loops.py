"""The event loops ``guts serve --loop`` runs on (asyncio's, uvloop's): the connection's
transport is found under uvicorn's send on both (uvloop's ``TCPTransport`` is not an
``asyncio.WriteTransport``: before, a server on uvloop silently lost the slow-client
cut-off and sent every frame through Starlette's wrappers)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, MutableMapping
from typing import Any

import pytest
import uvloop
from starlette.types import Message, Receive, Scope, Send
from typer.testing import CliRunner

from gutskit.cli.app import app as cli_app
from gutskit.server.app import LOOPS, UVICORN_OPTIONS, KeepTransport, transport_of


class _Protocol:
    """Stands for a uvicorn WebSocket protocol: ``send`` is a method of the object that
    holds ``transport``."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport

    async def send(self, message: MutableMapping[str, Any]) -> None:
        self.transport.write(message["text"].encode())


async def _kept_scope() -> tuple[dict[str, Any], type]:
    """The scope :class:`KeepTransport` passes on for a WebSocket over a real TCP
    connection of the running loop, and the type of that transport."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    seen: dict[str, Any] = {}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.update(scope)

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    scope: dict[str, Any] = {"type": "websocket", "state": {}}
    await KeepTransport(app)(scope, receive, _Protocol(writer.transport).send)
    kind = type(writer.transport)
    writer.close()
    server.close()
    return seen, kind


def _asyncio_run(main: Callable[[], Any]) -> Any:
    return asyncio.run(main())


def _uvloop_run(main: Callable[[], Any]) -> Any:
    return uvloop.run(main())


@pytest.mark.parametrize("run", [_asyncio_run, _uvloop_run], ids=["asyncio", "uvloop"])
def test_the_transport_is_kept_on_every_loop(run: Callable[[Callable[[], Any]], Any]) -> None:
    scope, kind = run(_kept_scope)
    transport = transport_of(scope)
    assert transport is not None and type(transport) is kind
    assert scope["state"]["gutskit.send"].__self__.transport is transport
    if run is _uvloop_run:
        assert kind.__module__ == "uvloop.loop"
        assert not isinstance(transport, asyncio.WriteTransport)


def test_the_loop_is_uvloops_by_default_and_can_fall_back() -> None:
    assert UVICORN_OPTIONS["loop"] == "auto" and LOOPS == ("auto", "uvloop", "asyncio")
    result = CliRunner().invoke(cli_app, ["serve", "--loop", "trio"])
    assert result.exit_code == 2
    assert "error: --loop 'trio' is not one of auto, uvloop, asyncio" in result.output
