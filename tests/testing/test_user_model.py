"""The scripted user model (not an LLM) through the real openai client and the loopback server:
plan steps, quoted utterances, stop signal from the prompt, refuse_after."""

from __future__ import annotations

import openai
import pytest

from agenteval_nb.agents.simulator import simulator_prompt
from agenteval_nb.schema import ConversationScenario
from agenteval_nb.testing import SCRIPTED_USER_MODEL, FakeOpenAIServer, ScriptedUserModel
from agenteval_nb.testing.user_model import plan_steps


def test_plan_steps() -> None:
    assert plan_steps("1. Ask A.\n- Ask B\n\n* Ask C") == ["Ask A.", "Ask B", "Ask C"]
    assert plan_steps("Greet. Then ask for help!") == ["Greet.", "Then ask for help!"]
    assert plan_steps('1. Ask: "I need a flight."\n2. Say “thanks”') == [
        "I need a flight.",
        "thanks",
    ]


def _ask(client: openai.OpenAI, messages: list[dict]) -> str:
    answer = client.chat.completions.create(model=SCRIPTED_USER_MODEL, messages=messages)
    assert answer.model == SCRIPTED_USER_MODEL
    return answer.choices[0].message.content


@pytest.mark.parametrize("stop", ["</done>", "BYE"])
def test_steps_then_the_prompt_stop_signal(stop: str) -> None:
    scenario = ConversationScenario(conversation_plan="1. Ask A\n2. Ask B", stop_signal=stop)
    system = {"role": "system", "content": simulator_prompt(scenario, stop)}
    with FakeOpenAIServer(handler=ScriptedUserModel()) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        assert _ask(client, [system, {"role": "user", "content": ""}]) == "Ask A"
        chat = [
            system,
            {"role": "user", "content": ""},
            {"role": "assistant", "content": "Ask A"},
            {"role": "user", "content": "reply"},
        ]
        assert _ask(client, chat) == "Ask B"
        chat += [{"role": "assistant", "content": "Ask B"}, {"role": "user", "content": "reply 2"}]
        assert _ask(client, chat) == stop


def test_refuse_after_ends_at_once() -> None:
    scenario = ConversationScenario(conversation_plan="1. Ask A\n2. Ask B", stop_signal="</done>")
    system = {"role": "system", "content": simulator_prompt(scenario, "</done>")}
    with FakeOpenAIServer(handler=ScriptedUserModel(refuse_after="cannot help")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0)
        chat = [
            system,
            {"role": "user", "content": ""},
            {"role": "assistant", "content": "Ask A"},
            {"role": "user", "content": "Sorry, I CANNOT HELP with that."},
        ]
        assert _ask(client, chat) == "</done>"
