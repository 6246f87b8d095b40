"""An offline scripted *user* model — **not an LLM** — that plays the simulated user of
``conversationScenario`` cases in tests, notebooks and demos.

Serve it like the other offline models (``FakeOpenAIServer(handler=ScriptedUserModel())`` or
through ``route_by_model``) and point ``ae.agents.LLMUserSimulator`` at
:data:`SCRIPTED_USER_MODEL`. Every completion has that ``model`` name.

**The rule.** The request is the simulator's chat: a system message holding the simulator
prompt (it ends with ``Conversation plan:`` and the plan), then the agent's replies as ``user``
messages and the simulated user's own earlier messages as ``assistant`` messages.

* The plan is split into *steps*: its non-empty lines, with leading list markers (``1.``,
  ``-``, ``*``) removed; a one-line plan is split into sentences instead. A step with a
  double-quoted text (``Ask for a flight: "I need …"``) says the quoted text; any other
  step is said as written.
* Step ``i`` is answered when the simulated user has already written ``i`` messages in this
  chat (its ``assistant`` messages); past the last step the answer is the stop signal, read
  from the prompt (the text after ``answer with exactly`` up to ``and nothing else``), or
  ``</finished>`` when the prompt names none.
* ``refuse_after`` (optional): a reply of the agent containing this text (case-insensitive)
  ends the conversation at once with the stop signal (e.g. the agent gave up).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .fake_server import completion

SCRIPTED_USER_MODEL = "scripted-user (offline, not an LLM)"
"""The ``model`` of every completion of :class:`ScriptedUserModel` (and its routing name)."""

DEFAULT_STOP_SIGNAL = "</finished>"
_PLAN_MARK = "Conversation plan:"
_STOP = re.compile(r"answer with exactly (?P<stop>.+?) and nothing else", re.DOTALL)
_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*")


_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')


def plan_steps(plan: str) -> list[str]:
    """What the user says at each step of a plan (rules in the module doc)."""
    lines = [_MARKER.sub("", line).strip() for line in plan.splitlines()]
    lines = [line for line in lines if line]
    if len(lines) == 1 and not _QUOTED.search(lines[0]):
        lines = [part.strip() for part in _SENTENCE.split(lines[0]) if part.strip()]
    steps = []
    for line in lines:
        quoted = _QUOTED.search(line)
        steps.append(next(g for g in quoted.groups() if g) if quoted else line)
    return steps


class ScriptedUserModel:
    """The scripted user model (rule in the module doc); a fake-server handler."""

    def __init__(self, *, refuse_after: str | None = None, name: str = SCRIPTED_USER_MODEL):
        self.refuse_after = refuse_after.lower() if refuse_after else None
        self.name = name

    def __repr__(self) -> str:
        return f"ScriptedUserModel(not an LLM, refuse_after={self.refuse_after!r})"

    def __call__(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return self.handler(request)

    def handler(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one chat-completions request of a user simulator."""
        messages = list(request.get("messages") or ())
        prompt = "\n".join(
            str(m.get("content") or "") for m in messages if m.get("role") == "system"
        )
        plan = prompt.split(_PLAN_MARK, 1)[1] if _PLAN_MARK in prompt else ""
        found = _STOP.search(prompt)
        stop = found.group("stop").strip() if found else DEFAULT_STOP_SIGNAL
        written = sum(1 for m in messages if m.get("role") == "assistant")
        last_reply = next(
            (str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"),
            "",
        )
        steps = plan_steps(plan)
        if self.refuse_after and self.refuse_after in last_reply.lower():
            text = stop
        elif written < len(steps):
            text = steps[written]
        else:
            text = stop
        return completion(text, model=self.name)
