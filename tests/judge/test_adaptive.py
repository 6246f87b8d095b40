"""Adaptive judge concurrency (agenteval_nb.judge.adaptive): AIMD rules, every 429 seen, nothing
lost on a server with a capacity."""

from __future__ import annotations

import asyncio
import email.utils

import pytest

import agenteval_nb as ae
from agenteval_nb.judge import EndpointLimiter, JudgeClient
from agenteval_nb.judge.adaptive import (
    Adaptive,
    AdaptiveController,
    retry_after_s,
    retry_delay,
)
from agenteval_nb.judge.judge_errors import JudgeError
from agenteval_nb.judge.request import resolve_endpoint
from agenteval_nb.schema.metric import JudgeModelOptions
from agenteval_nb.testing import FakeOpenAIServer, FakeResponse
from agenteval_nb.testing.fake_server import completion, error_body

pytestmark = pytest.mark.anyio

VALID = "reasoning: same answer\nis_the_agent_response_valid: valid"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Busy:
    """A limiter stand-in whose ``in_use`` the test sets (the saturation gate reads it)."""

    def __init__(self) -> None:
        self.limits: list[int] = []
        self.in_use = 0

    def set_limit(self, limit: int) -> None:
        self.limits.append(limit)
        self.in_use = limit  # saturated unless a test says otherwise


def controller(**settings) -> tuple[AdaptiveController, Busy, Clock]:
    busy, clock = Busy(), Clock()
    ctl = AdaptiveController(Adaptive(**settings), busy, key="k", clock=clock)  # type: ignore[arg-type]
    return ctl, busy, clock


def succeed(ctl: AdaptiveController, n: int, *, clean: bool = True) -> None:
    for _ in range(n):
        ctl.succeeded(clean=clean)


# the AIMD rules ---------------------------------------------------------------------------------


def test_slow_start_doubles_per_clean_round_up_to_max():
    ctl, busy, _ = controller(start=4, max=20)
    succeed(ctl, 3)
    assert ctl.limit == 4  # a round is max(limit, 4) clean successes
    succeed(ctl, 1)
    assert ctl.limit == 8
    succeed(ctl, 8)
    assert ctl.limit == 16
    succeed(ctl, 16)
    assert ctl.limit == 20  # never above max
    assert busy.limits == [4, 8, 16, 20]
    assert [h["reason"] for h in ctl.history()] == ["slow_start"] * 3


def test_cut_on_429_once_per_episode_then_additive_growth_after_the_cooldown():
    ctl, _, clock = controller(start=40, max=100, cooldown_s=5.0)
    sent = ctl.epoch
    ctl.rate_limited(None, sent_at=sent)
    assert ctl.limit == 32  # × 0.8
    ctl.rate_limited(2.0, sent_at=sent)  # sent under the old limit: same episode
    assert ctl.limit == 32
    succeed(ctl, 100)  # during the cooldown: not counted
    assert ctl.limit == 32
    clock.now = 5.0
    succeed(ctl, 32)
    assert ctl.limit == 34  # steady state: + max(1, round(5 % of 32))
    ctl.rate_limited(30.0, sent_at=ctl.epoch)
    assert ctl.limit == 27
    clock.now = 6.0
    ctl.rate_limited(None, sent_at=ctl.epoch)  # sent after the cut: a new episode
    assert ctl.limit == 21
    clock.now = 34.9  # the Retry-After of 30 s at t=5 outlasts the 5 s cooldown of t=6
    succeed(ctl, 21)
    assert ctl.limit == 21
    clock.now = 35.0
    succeed(ctl, 21)
    assert ctl.limit == 22
    assert ctl.rate_limits == 4
    reasons = [h["reason"] for h in ctl.history()]
    assert reasons == ["rate_limit", "steady_up", "rate_limit", "rate_limit", "steady_up"]
    assert ctl.history()[0] == {"t": 0.0, "key": "k", "old": 40, "new": 32, "reason": "rate_limit"}


def test_cuts_round_down_and_never_go_below_min():
    ctl, _, _ = controller(min=2, start=3, cooldown_s=0.0)
    ctl.rate_limited(None, sent_at=ctl.epoch)
    assert ctl.limit == 2  # floor(3 × 0.8)
    ctl.rate_limited(None, sent_at=ctl.epoch)
    assert ctl.limit == 2
    ctl2, _, _ = controller(start=9, decrease=0.9)
    ctl2.rate_limited(None, sent_at=0)
    assert ctl2.limit == 8  # floor(8.1)


def test_retries_and_unsaturated_successes_do_not_grow_the_limit():
    ctl, busy, _ = controller(start=10)
    succeed(ctl, 9)
    ctl.succeeded(clean=False)  # answered after a retry: the round starts over
    succeed(ctl, 9)
    assert ctl.limit == 10
    ctl.neutral()  # a 5xx or timeout: same
    succeed(ctl, 9)
    assert ctl.limit == 10
    busy.in_use = 7  # below 80 % of the limit: the limit is not what holds calls back
    succeed(ctl, 50)
    assert ctl.limit == 10
    busy.in_use = 8
    succeed(ctl, 10)
    assert ctl.limit == 20


def test_settings_are_checked():
    with pytest.raises(ValueError, match="min <= start <= max"):
        Adaptive(min=5, start=2)
    with pytest.raises(ValueError, match="decrease"):
        Adaptive(decrease=1.0)
    with pytest.raises(ValueError, match="max_wait_s"):
        Adaptive(max_wait_s=-1)
    with pytest.raises(ValueError, match="concurrency must be 'adaptive'"):
        JudgeClient(concurrency="fast")


def test_retry_after_headers():
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_s({"retry-after": "1.5"}) == 1.5
    assert retry_after_s({"retry-after": "soon"}) is None
    assert retry_after_s({}) is None
    date = email.utils.formatdate(1000.0 + 30, usegmt=True)
    assert retry_after_s({"retry-after": date}, now=1000.0) == pytest.approx(30.0)
    for attempt in range(6):
        assert 0.4 <= retry_delay(0.4, attempt) <= 0.44  # the server's wait, never less
    assert retry_delay(None, 0) >= 0.5
    assert 8.0 <= retry_delay(None, 10) <= 8.8  # capped backoff without a header


# the limiter's changeable cap -------------------------------------------------------------------


async def test_raising_the_limit_serves_waiters_and_lowering_withdraws_released_slots():
    limiter = EndpointLimiter(1)
    await limiter.acquire()
    waiters = [asyncio.create_task(limiter.acquire()) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert not any(w.done() for w in waiters)
    limiter.set_limit(3)
    await asyncio.sleep(0.01)
    assert [w.done() for w in waiters] == [True, True, False]
    assert limiter.in_use == 3
    limiter.set_limit(1)
    limiter.release()  # 3 held > limit 1: the slot is withdrawn, not handed over
    limiter.release()
    await asyncio.sleep(0.01)
    assert not waiters[2].done() and limiter.in_use == 1
    limiter.release()
    await asyncio.wait_for(waiters[2], 1)
    assert limiter.in_use == 1
    limiter.release()
    assert limiter.in_use == 0


# the client against the loopback server ---------------------------------------------------------


def model(server: FakeOpenAIServer) -> JudgeModelOptions:
    return JudgeModelOptions.model_validate({"modelName": "judge-1", "baseURL": server.base_url})


def messages(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"q{i}"}]


async def test_every_429_reaches_the_controller_and_5xx_is_still_retried_by_openai():
    rate_limit = FakeResponse(429, error_body("slow down"), headers={"retry-after-ms": "20"})
    with FakeOpenAIServer(
        responses=[rate_limit, rate_limit, FakeResponse(500, error_body("oops")), completion("ok")]
    ) as server:
        client = JudgeClient(concurrency=Adaptive(start=4), max_retries=4)
        sleeps: list[float] = []

        async def record(delay: float) -> None:
            sleeps.append(delay)

        async with client:
            ctl = client.controller(resolve_endpoint(model(server)))
            ctl.sleep = record
            call = await client.complete(model(server), messages(0))
        assert call.content == "ok"
        assert server.request_count == 4  # two 429s (ours), a 500 retried by openai, the answer
        assert ctl.rate_limits == 2  # each 429 was seen
        assert call.retries == 3
        assert len(sleeps) == 2 and all(s >= 0.02 for s in sleeps)  # Retry-After honoured


async def test_a_call_that_keeps_getting_429_fails_with_the_reason_after_the_wait_limit():
    def always_busy(request):
        return FakeResponse(429, error_body("busy"), headers={"retry-after": "0.05"})

    with FakeOpenAIServer(always_busy) as server:
        client = JudgeClient(concurrency=Adaptive(start=2, max_wait_s=0.2), max_retries=4)
        async with client:
            with pytest.raises(JudgeError, match="kept answering HTTP 429") as failure:
                await client.complete(model(server), messages(0))
        assert failure.value.status_code == 429
        assert 4 <= server.request_count <= 5  # ~0.2 s of 0.05 s waits, then the error
        assert client.usage.errors == 1


async def run_calls(client: JudgeClient, server: FakeOpenAIServer, n: int) -> list:
    async with client:
        return await asyncio.gather(
            *(client.complete(model(server), messages(i)) for i in range(n)),
            return_exceptions=True,
        )


@pytest.mark.parametrize("capacity", [4, 8])
async def test_a_capped_server_loses_nothing_and_sees_fewer_429s_than_a_fixed_twice_capacity(
    capacity,
):
    n = 120  # latency well above the client's CPU per call, so that 2C calls reach the server
    with FakeOpenAIServer(latency_s=0.1, capacity=capacity, retry_after_s=0.05) as server:
        fixed = JudgeClient(max_concurrency=2 * capacity, max_retries=50)
        fixed_outcomes = await run_calls(fixed, server, n)
        fixed_429 = server.rate_limited_count
        server.reset()
        settings = Adaptive(start=capacity, cooldown_s=0.3)
        adaptive = JudgeClient(concurrency=settings, max_retries=0)
        outcomes = await run_calls(adaptive, server, n)
        adaptive_429 = server.rate_limited_count
        assert server.request_count == n + adaptive_429
    assert not [o for o in outcomes if isinstance(o, BaseException)]  # 0 lost
    assert not [o for o in fixed_outcomes if isinstance(o, BaseException)]
    assert 0 < adaptive_429 < fixed_429
    history = adaptive.concurrency_history()
    assert any(h["reason"] == "rate_limit" for h in history)
    assert all(1 <= h["new"] <= settings.max for h in history)
    (ctl,) = adaptive._controllers.values()
    assert ctl.rate_limits == adaptive_429  # every 429 the server sent was seen
    assert ctl.limit <= 3 * capacity  # settles near the capacity


def test_evaluate_with_adaptive_concurrency_evaluates_every_case(tmp_path):
    def answer(request):
        return completion(VALID, model=request["model"])

    cases = [
        {
            "evalId": f"c{i}",
            "evalMode": "trace",
            "sessionInput": {"appName": "a", "userId": "u"},
            "conversation": [
                {
                    "userContent": {"role": "user", "content": f"q{i}"},
                    "finalResponse": {"role": "assistant", "content": "a"},
                }
            ],
            "actualConversation": [
                {
                    "userContent": {"role": "user", "content": f"q{i}"},
                    "finalResponse": {"role": "assistant", "content": "a"},
                }
            ],
        }
        for i in range(40)
    ]
    with FakeOpenAIServer(answer, latency_s=0.1, capacity=3, retry_after_s=0.05) as server:
        metrics = [
            {
                "metricName": "llm_final_response",
                "threshold": 1,
                "criterion": {
                    "llmJudge": {"judgeModel": {"modelName": "j", "baseURL": server.base_url}}
                },
            }
        ]
        run = ae.evaluate(
            {"evalSetId": "s", "evalCases": cases},
            metrics,
            judge_concurrency=ae.Adaptive(start=6, cooldown_s=0.05),
            cache=False,
            progress=False,
        )
        assert server.rate_limited_count > 0
    assert {c.final_eval_status for c in run.record.result.eval_case_results} == {"passed"}
    assert run.info["judge_usage"]["errors"] == 0
    history = run.info["judge_concurrency"]
    assert any(h["reason"] == "rate_limit" for h in history)
