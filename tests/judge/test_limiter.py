"""EndpointLimiter: concurrency cap (seen by the server), rate bucket, loops in other threads."""

from __future__ import annotations

import asyncio
import threading

import pytest

from agenteval_nb.judge import Adaptive, EndpointLimiter, JudgeClient
from agenteval_nb.testing import FakeOpenAIServer

pytestmark = pytest.mark.anyio


def msgs(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"q{i}"}]


async def test_client_caps_in_flight_requests_at_the_server(judge_model):
    with FakeOpenAIServer(latency_s=0.05) as server:
        model = judge_model(baseURL=server.base_url)
        async with JudgeClient(max_concurrency=4) as client:
            calls = await asyncio.gather(*(client.complete(model, msgs(i)) for i in range(40)))
            limiter = client.limiter(server.base_url)
            assert limiter.in_use == 0
        assert len(calls) == 40
        assert server.request_count == 40
        assert server.max_in_flight == 4


async def test_without_limit_the_server_sees_more(judge_model):
    """Control for the test above: the fake server really can observe parallel requests."""
    with FakeOpenAIServer(latency_s=0.05) as server:
        model = judge_model(baseURL=server.base_url)
        async with JudgeClient(max_concurrency=64) as client:
            await asyncio.gather(*(client.complete(model, msgs(i)) for i in range(40)))
        assert server.max_in_flight > 4


def test_one_limiter_spans_loops_in_several_threads(judge_model):
    """Private event loops in worker threads share the client's limiter for the endpoint."""
    with FakeOpenAIServer(latency_s=0.03) as server:
        model = judge_model(baseURL=server.base_url)
        client = JudgeClient(max_concurrency=3)
        errors: list[BaseException] = []

        def worker(offset: int) -> None:
            async def main():
                batch = (client.complete(model, msgs(offset + i)) for i in range(15))
                await asyncio.gather(*batch)
                await client.close_loop_clients()

            try:
                asyncio.run(main())
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(100 * k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert server.request_count == 45
        assert server.max_in_flight <= 3
        assert client.limiter(server.base_url).max_in_use == 3


async def test_waiters_are_served_in_order_and_cancellation_frees_nothing_twice():
    limiter = EndpointLimiter(max_concurrency=1)
    order: list[int] = []
    await limiter.acquire()

    async def waiter(i: int) -> None:
        async with limiter.slot():
            order.append(i)

    tasks = [asyncio.create_task(waiter(i)) for i in range(4)]
    await asyncio.sleep(0)
    tasks[1].cancel()  # a queued waiter gives up
    limiter.release()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert order == [0, 2, 3]
    assert limiter.in_use == 0


async def test_cancel_after_hand_over_returns_the_slot():
    limiter = EndpointLimiter(max_concurrency=1)
    await limiter.acquire()
    task = asyncio.create_task(limiter.acquire())
    await asyncio.sleep(0)
    limiter.release()  # the slot is handed to the waiter (wake-up scheduled) ...
    task.cancel()  # ... which is cancelled before it runs
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    assert limiter.in_use == 0
    await asyncio.wait_for(limiter.acquire(), 1)  # and the slot is usable again
    assert limiter.in_use == 1


async def test_rate_bucket_spaces_requests():
    now = [1000.0]
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter = EndpointLimiter(
        max_concurrency=10, requests_per_minute=120, clock=lambda: now[0], sleep=fake_sleep
    )
    for _ in range(4):
        async with limiter.slot():
            pass
    assert slept == pytest.approx([0.5, 0.5, 0.5])  # first token free, then 60/120 s apart
    now[0] += 10  # idle time refills at most `burst` (1) token
    async with limiter.slot():
        pass
    assert len(slept) == 3


async def test_rate_bucket_burst():
    now = [0.0]
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    limiter = EndpointLimiter(
        requests_per_minute=60, burst=3, clock=lambda: now[0], sleep=fake_sleep
    )
    for _ in range(5):
        async with limiter.slot():
            pass
    assert slept == pytest.approx([1.0, 1.0])


def test_limiter_arguments_are_checked():
    with pytest.raises(ValueError):
        EndpointLimiter(0)
    with pytest.raises(ValueError):
        EndpointLimiter(requests_per_minute=0)
    with pytest.raises(ValueError):
        EndpointLimiter(burst=0)


def test_limiters_are_per_base_url():
    client = JudgeClient(max_concurrency=7, requests_per_minute=30)
    a = client.limiter("http://a/v1")
    assert client.limiter("http://a/v1/") is a
    assert client.limiter("http://b/v1") is not a
    assert (a.max_concurrency, a.requests_per_minute) == (7, 30)
    shared = EndpointLimiter(2)
    client.set_limiter("http://c/v1", shared)
    assert client.limiter("http://c/v1") is shared


@pytest.mark.parametrize("workers", [1, 2, 3, 5, 7, 32, 40])
def test_worker_shares_together_stay_within_the_clients_limits(workers):
    client = JudgeClient(max_concurrency=32, requests_per_minute=90.0)
    settings = client.worker_settings(workers)
    if workers <= 32:
        assert settings["max_concurrency"] * workers <= 32
        assert settings["max_concurrency"] == 32 // workers
    else:  # fewer requests than workers: each worker still sends one
        assert settings["max_concurrency"] == 1
    assert settings["requests_per_minute"] * workers == pytest.approx(90.0)
    rebuilt = JudgeClient(**settings)
    assert rebuilt.max_concurrency == settings["max_concurrency"]


def test_adaptive_worker_shares_divide_the_limits():
    client = JudgeClient(concurrency=Adaptive(min=2, start=10, max=40))
    settings = client.worker_settings(4)
    assert settings["concurrency"] == Adaptive(min=1, start=2, max=10)
    rebuilt = JudgeClient(**settings)
    assert rebuilt.max_concurrency == 10
    assert JudgeClient(concurrency="adaptive").worker_settings(1000)["concurrency"].max == 1
    assert client.worker_settings(1)["concurrency"] == client.adaptive
