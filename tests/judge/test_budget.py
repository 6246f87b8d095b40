"""The judge budget: a hard cap by reservation (agenteval_nb.judge.budget)."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import warnings

import pytest

import agenteval_nb as ae
from agenteval_nb.errors import ConfigError
from agenteval_nb.judge import JudgeClient
from agenteval_nb.judge.budget import (
    Budget,
    BudgetExhausted,
    budget_refusal,
    charged_cost,
    dollars,
    input_token_bound,
    output_token_bound,
    worst_case_cost,
)
from agenteval_nb.judge.judge_errors import JudgeError
from agenteval_nb.schema.metric import JudgeModelOptions
from agenteval_nb.testing import FakeOpenAIServer, FakeResponse
from agenteval_nb.testing.fake_server import completion

pytestmark = pytest.mark.anyio

PRICES = {"judge-1": (3.0, 15.0)}  # $/1M tokens
VALID = "reasoning: same answer\nis_the_agent_response_valid: valid"


def content_bytes(request: dict) -> int:
    """The server's input token count: one token per UTF-8 byte of the message texts (the
    most a byte-level BPE tokenizer can count for them)."""
    return sum(len(str(m.get("content") or "").encode()) for m in request["messages"])


def cost(prompt: int, completion_tokens: int, model: str = "judge-1") -> float:
    price_in, price_out = PRICES[model]
    return (prompt * price_in + completion_tokens * price_out) / 1_000_000


class BillingServer:
    """A handler that answers with adversarial usage and sums, server side, what it billed."""

    def __init__(self, seed: int, max_latency_s: float = 0.03) -> None:
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.billed = 0.0
        self.max_latency_s = max_latency_s

    def __call__(self, request: dict) -> FakeResponse:
        limit = request.get("max_tokens") or 0
        with self.lock:
            out = limit if self.rng.random() < 0.5 else self.rng.randint(0, limit)
            delay = self.rng.uniform(0, self.max_latency_s)
            prompt = content_bytes(request)
            self.billed += cost(prompt, out, request["model"])
        usage = {"prompt_tokens": prompt, "completion_tokens": out}
        return FakeResponse(
            200, completion(VALID, model=request["model"], usage=usage), delay_s=delay
        )


def varied_messages(i: int, rng: random.Random) -> list[dict[str, str]]:
    text = f"case {i}: " + "é中😀a"[i % 4] * rng.randint(10, 400)
    return [{"role": "user", "content": text}]


# token bounds and amounts -------------------------------------------------------------------------


def test_input_bound_is_the_utf8_bytes_of_the_body():
    body = {"model": "m", "messages": [{"role": "user", "content": "é中😀"}]}
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    assert input_token_bound(body) == len(text.encode()) == len(text) + 1 + 2 + 3
    # at least one token per byte of every text the provider tokenizes
    assert input_token_bound(body) > len("é中😀".encode()) + 4 * len(body["messages"])


def test_output_bound_takes_max_completion_tokens_then_max_tokens_times_n():
    assert output_token_bound({"max_tokens": 50}) == 50
    assert output_token_bound({"max_tokens": 50, "max_completion_tokens": 70}) == 70
    assert output_token_bound({"max_tokens": 50, "n": 3}) == 150
    assert output_token_bound({"max_tokens": True}) is None
    assert output_token_bound({"temperature": 0}) is None


def test_worst_case_cost_and_its_errors():
    body = {"model": "judge-1", "messages": [], "max_tokens": 100}
    assert worst_case_cost(body, PRICES) == pytest.approx(cost(input_token_bound(body), 100))
    with pytest.raises(JudgeError, match="has no price"):
        worst_case_cost({**body, "model": "other"}, PRICES)
    with pytest.raises(JudgeError, match="needs max_tokens"):
        worst_case_cost({"model": "judge-1", "messages": []}, PRICES)


def test_charged_cost_falls_back_to_the_reservation_without_usage():
    assert charged_cost({"usage": {}}, 0.25, 1.0) == 0.25
    assert charged_cost({}, 0.0, 1.0) == 1.0
    assert charged_cost({"usage": {}}, None, 1.0) == 1.0


def test_dollars_and_the_exact_reason():
    assert dollars(5.0) == "$5.00"
    assert dollars(0.0042) == "$0.0042"
    assert str(BudgetExhausted(5.0)) == "budget exhausted ($5.00)"
    wrapped = RuntimeError("judge response: budget exhausted ($5.00)")
    wrapped.__cause__ = BudgetExhausted(5.0)
    assert isinstance(budget_refusal(wrapped), BudgetExhausted)
    assert budget_refusal(RuntimeError("x")) is None


# the ledger -------------------------------------------------------------------------------------


async def test_a_call_waits_for_calls_in_flight_then_is_refused_only_when_it_cannot_fit():
    budget = Budget(1.0)
    first = await budget.reserve(0.6)
    waiting = asyncio.create_task(budget.reserve(0.6))  # fits once the first settles low
    await asyncio.sleep(0.01)
    assert not waiting.done()
    first.settle(0.1)
    second = await asyncio.wait_for(waiting, 1)
    assert budget.as_dict()["reserved_usd"] == pytest.approx(0.6)
    second.settle(0.6)
    assert budget.spent_usd == pytest.approx(0.7)
    with pytest.raises(BudgetExhausted, match=r"^budget exhausted \(\$1\.00\)$"):
        await budget.reserve(0.31)  # spent 0.7 + 0.31 > 1.0 whatever happens
    third = await budget.reserve(0.3)  # exactly fits
    third.keep()
    assert budget.spent_usd == pytest.approx(1.0)
    assert budget.refused == 1


async def test_a_waiter_is_refused_when_the_calls_it_waited_for_spend_too_much():
    budget = Budget(1.0)
    first = await budget.reserve(0.6)
    waiting = asyncio.create_task(budget.reserve(0.5))
    await asyncio.sleep(0.01)
    first.keep()  # spent 0.6: 0.5 can no longer fit
    with pytest.raises(BudgetExhausted):
        await asyncio.wait_for(waiting, 1)


async def test_a_cancelled_waiter_leaves_no_trace():
    budget = Budget(1.0)
    first = await budget.reserve(0.9)
    waiting = asyncio.create_task(budget.reserve(0.5))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    first.settle(0.0)
    assert budget.as_dict() == {
        "cap_usd": 1.0,
        "spent_usd": 0.0,
        "reserved_usd": 0.0,
        "in_flight": 0,
        "refused": 0,
    }


def test_one_ledger_spans_loops_in_several_threads():
    budget = Budget(10.0)
    rng = random.Random(7)
    plans = [[(rng.uniform(0.01, 0.5), rng.random()) for _ in range(200)] for _ in range(4)]

    async def spend(plan):
        async def one(amount, share):
            try:
                reservation = await budget.reserve(amount)
            except BudgetExhausted:
                return
            await asyncio.sleep(share / 100)
            reservation.settle(amount * share)

        await asyncio.gather(*(one(a, s) for a, s in plan))

    threads = [threading.Thread(target=asyncio.run, args=(spend(p),)) for p in plans]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    snap = budget.as_dict()
    assert snap["in_flight"] == 0 and snap["reserved_usd"] == 0.0
    assert 9.0 < snap["spent_usd"] <= 10.0
    assert snap["refused"] > 0


# the client against the loopback server ---------------------------------------------------------


@pytest.mark.parametrize("concurrency", [8, 32])
@pytest.mark.parametrize("seed", [0, 1, 2])
async def test_server_side_spend_never_passes_the_cap(seed, concurrency):
    billing = BillingServer(seed)
    rng = random.Random(seed)
    with FakeOpenAIServer(billing) as server:
        model = JudgeModelOptions.model_validate(
            {
                "modelName": "judge-1",
                "baseURL": server.base_url,
                "generationConfig": {"max_tokens": 400},
            }
        )
        messages = [varied_messages(i, rng) for i in range(120)]
        worst = [
            worst_case_cost({"model": "judge-1", "messages": m, "max_tokens": 400}, PRICES)
            for m in messages
        ]
        cap = sum(worst[:10])  # about ten calls' worth of worst cases
        client = JudgeClient(max_concurrency=concurrency, price_table=PRICES, budget_usd=cap)
        async with client:
            outcomes = await asyncio.gather(
                *(client.complete(model, m) for m in messages), return_exceptions=True
            )
        refused = [o for o in outcomes if isinstance(o, BudgetExhausted)]
        answered = [o for o in outcomes if not isinstance(o, BaseException)]
        assert len(refused) + len(answered) == len(messages)
        assert billing.billed <= cap
        assert client.budget.spent_usd == pytest.approx(billing.billed, rel=1e-9, abs=1e-12)
        assert server.request_count == len(answered)
        assert refused and len(answered) >= 10
        assert billing.billed > cap - max(worst)  # refusals only once the cap is nearly used
        assert client.usage.errors == 0
        assert server.max_in_flight <= concurrency


async def test_an_http_error_costs_nothing_and_a_timeout_keeps_its_reservation():
    with FakeOpenAIServer(
        responses=[FakeResponse(400, {"error": {"message": "bad"}}), FakeResponse(200, delay_s=2)]
    ) as server:
        model = JudgeModelOptions.model_validate(
            {"modelName": "judge-1", "baseURL": server.base_url}
        )
        body = {"model": "judge-1", "messages": [{"role": "user", "content": "x"}]}
        client = JudgeClient(price_table=PRICES, budget_usd=1.0, max_retries=0, timeout=0.3)
        async with client:
            with pytest.raises(JudgeError, match="HTTP 400"):
                await client.complete(model, body["messages"])
            assert client.budget.spent_usd == 0.0
            with pytest.raises(JudgeError, match="timed out"):
                await client.complete(model, body["messages"])
            sent = server.chat_requests[1]
        assert sent["max_tokens"] == 2000  # the default generation config
        assert client.budget.spent_usd == pytest.approx(worst_case_cost(sent, PRICES))


# ae.evaluate ------------------------------------------------------------------------------------


def evalset(n: int) -> dict:
    def turn(text):
        return {
            "userContent": {"role": "user", "content": text},
            "finalResponse": {"role": "assistant", "content": text},
        }

    return {
        "evalSetId": "budget",
        "evalCases": [
            {
                "evalId": f"c{i}",
                "evalMode": "trace",
                "sessionInput": {"appName": "a", "userId": "u"},
                "conversation": [turn(f"q{i}")],
                "actualConversation": [turn(f"q{i}")],
            }
            for i in range(n)
        ],
    }


def judge_metrics(base_url: str, model: str = "judge-1", **generation) -> list[dict]:
    judge_model = {"modelName": model, "baseURL": base_url}
    if generation:
        judge_model["generationConfig"] = generation
    return [
        {
            "metricName": "llm_final_response",
            "threshold": 1,
            "criterion": {"llmJudge": {"judgeModel": judge_model}},
        }
    ]


def full_price_answer(request: dict) -> dict:
    """An answer billed near its worst case: every output token used."""
    usage = {"prompt_tokens": content_bytes(request), "completion_tokens": request["max_tokens"]}
    return completion(VALID, model=request["model"], usage=usage)


def test_evaluate_leaves_unstarted_judgements_not_evaluated_with_the_exact_reason(tmp_path):
    prices = {"judge-1": (0.0, 1000.0)}  # $2.00 of output per call at max_tokens 2000
    with FakeOpenAIServer(full_price_answer) as server:
        with pytest.warns(UserWarning, match=r"budget of \$5\.00 exhausted: 8 judge calls"):
            run = ae.evaluate(
                evalset(10),
                judge_metrics(server.base_url),
                cache=tmp_path / "cache.db",
                price_table=prices,
                budget_usd=5.0,
                case_parallelism=1,
                progress=False,
            )
        assert server.request_count == 2
    statuses = [c.overall_eval_metric_results[0] for c in run.record.result.eval_case_results]
    assert [m.eval_status for m in statuses] == ["passed"] * 2 + ["not_evaluated"] * 8
    for metric in statuses[2:]:
        assert metric.details.reason == "budget exhausted ($5.00)"
        assert metric.score == 0.0
    case = run.record.result.eval_case_results[5]
    assert case.error_message is None
    per_turn = case.eval_metric_result_per_invocation[0].eval_metric_results[0]
    assert per_turn.eval_status == "not_evaluated"
    assert per_turn.details.reason == "budget exhausted ($5.00)"
    assert run.info["judge_budget"]["spent_usd"] == pytest.approx(4.0)
    assert run.info["judge_usage"]["errors"] == 0


def test_cache_hits_cost_nothing(tmp_path):
    cache = tmp_path / "cache.db"
    with FakeOpenAIServer(full_price_answer) as server:
        kwargs = {"cache": cache, "price_table": PRICES, "progress": False}
        ae.evaluate(evalset(3), judge_metrics(server.base_url), **kwargs)
        assert server.request_count == 3
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "budget exhausted" warning
            run = ae.evaluate(evalset(3), judge_metrics(server.base_url), budget_usd=1e-9, **kwargs)
        assert server.request_count == 3
    assert run.info["judge_budget"]["spent_usd"] == 0.0
    assert {c.final_eval_status for c in run.record.result.eval_case_results} == {"passed"}


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"model": "unpriced"}, r"judge model 'unpriced' has no price"),
        ({"generation": {"temperature": 0.0}}, r"sets no max_tokens"),
        ({"judge": lambda messages, structured_output=None: None}, r"injected judge"),
        ({"budget": 0.0}, r"budget_usd must be a finite number of dollars > 0"),
        ({"budget": float("nan")}, r"budget_usd must be a finite number"),
    ],
)
def test_an_unpriced_or_unbounded_judge_is_an_error_before_any_call(setup, message):
    agent_calls = []

    def agent(text: str) -> str:
        agent_calls.append(text)
        return text

    cases = evalset(2)
    for case in cases["evalCases"]:
        case["evalMode"] = ""  # the agent would run first
        del case["actualConversation"]
    with FakeOpenAIServer(full_price_answer) as server:
        metrics = judge_metrics(
            server.base_url, setup.get("model", "judge-1"), **setup.get("generation", {})
        )
        with pytest.raises(ConfigError, match=message):
            ae.evaluate(
                cases,
                metrics,
                agent=agent,
                judge=setup.get("judge"),
                price_table=PRICES,
                budget_usd=setup.get("budget", 5.0),
                progress=False,
                cache=False,
            )
        assert server.request_count == 0
    assert agent_calls == []


def test_a_given_client_takes_its_own_budget():
    with pytest.raises(ConfigError, match=r"JudgeClient\(budget_usd=\.\.\.\)"):
        ae.evaluate(
            evalset(1),
            judge_metrics("http://127.0.0.1:9/v1"),
            judge=JudgeClient(price_table=PRICES),
            price_table=PRICES,
            budget_usd=1.0,
            progress=False,
        )
