"""Per-loop openai clients are closed on their own loop before it closes.

The cause of the intermittent ``RuntimeError: Event loop is closed`` (and unclosed-socket
``ResourceWarning``s) in the judge and agent tests: a client whose loop ended without closing
it was collected later, and its sockets' transports called into the closed loop. Here a real
request leaves a kept-alive connection in the pool, so a client left open would hold a socket.
"""

from __future__ import annotations

import asyncio
import gc
import warnings

import openai

from agenteval_nb.openai_pool import LoopClients


def _client(server) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=server.base_url, api_key="offline", max_retries=0)


async def _call(clients: LoopClients, server) -> openai.AsyncOpenAI:
    client = clients.get("k", lambda: _client(server))
    assert clients.get("k", lambda: _client(server)) is client  # one per loop and key
    await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    return client


def test_a_loops_clients_are_closed_when_the_loop_shuts_down(server):
    clients = LoopClients()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        client = asyncio.run(_call(clients, server))  # nobody closes it explicitly
        assert client.is_closed()
        del client
        gc.collect()


def test_close_running_closes_now_and_leaves_nothing_for_shutdown(server):
    clients = LoopClients()

    async def main() -> openai.AsyncOpenAI:
        client = await _call(clients, server)
        await clients.close_running()
        assert client.is_closed()
        return client

    assert asyncio.run(main()).is_closed()


def test_each_loop_gets_its_own_client(server):
    clients = LoopClients()
    first = asyncio.run(_call(clients, server))
    second = asyncio.run(_call(clients, server))
    assert first is not second
    assert first.is_closed() and second.is_closed()
