"""An offline scripted chat model for agents — **not an LLM** — for tests, demos and CI.

:class:`ScriptedAgentModel` answers OpenAI chat-completions requests with keyword rules, so an
agent under test (``ae.agents.OpenAIAgent``, an openai-agents SDK agent, any tool-calling loop)
can run without a model: ``FakeOpenAIServer(handler=ScriptedAgentModel([...]))``. Every
completion it returns has ``model`` = :data:`SCRIPTED_AGENT_MODEL` (``"scripted-agent (offline,
not an LLM)"``) and ``system_fingerprint`` = ``"scripted-agent"``. Combine it with the heuristic
judge on one server with :func:`~agenteval_nb.testing.fake_server.route_by_model`.

**The rules**, applied to each request (the *turn* is the messages after the last ``user``
message; the *user text* is that message's content, text parts joined):

1. A :class:`ToolRule` *matches* when one of its keywords occurs in the lower-cased user text at
   the start of a word (``"weather"`` matches ``"Weather?"`` and ``"weathers"``, not
   ``"bellwether"``) and the request offers its tool in ``tools[]`` (``tool_choice: "none"``
   offers none). Its arguments are a dict (sent as is), a regex (its named groups that matched
   in the user text; ``{}`` when it does not match) or a callable ``text -> dict``.
2. *Pending* rules are the matching rules whose tool has not been called in this turn yet. If
   some are pending, the answer is an assistant message calling them: all at once
   (``parallel=True``, the default) or the first one only (``parallel=False``: one call per
   step), with the first called rule's ``say`` text as content (``None`` without one) and
   ``finish_reason: "tool_calls"``. Call ids are ``call_<n>``, ``n`` counting the tool calls of
   the whole conversation from 1, so equal requests get equal ids.
3. Else, when the turn has tool results, the final answer: one sentence per result, in call
   order. A result is the tool message's content, decoded as JSON (or as the ``str()`` of a
   Python dict or list, which some SDKs send: single quotes and ``True``/``False``/``None``
   rewritten, never evaluated) when it is one. An *error* result (text starting
   with ``error:`` — the toolkit's form — or ``An error occurred``, the openai-agents form) gives
   ``"Sorry, I could not complete <tool>: <text>."``; otherwise the rule's ``answer`` template,
   formatted with ``result``, ``arguments`` (the call's decoded arguments) and ``tool``
   (``"It is {result[condition]} in {arguments[city]}."``); without a template, or when the
   template names a field the result lacks, ``"Result of <tool>: <result as JSON>."``.
4. Else the text of the first ``answers`` entry whose keyword matches the user text (same
   matching as 1), else ``fallback``.

**DSPy's text protocol** (:mod:`.field_text`): a request whose last user message asks for
``[[ ## field ## ]]`` output fields is answered in kind, by the same rules read on that
message's first input field (the question): a ReAct step (``next_tool_name`` wanted) calls the
first pending rule's tool (not yet named in the trajectory, offered in the step's ``Literal``
list) with its arguments as ``next_tool_args``, else ``finish``; any other request gets the
final answer of rule 3 from the trajectory's observations (rule 4 without any) in each wanted
field (``reasoning``: a fixed note). Mistakes are not drawn in this protocol.

**Controlled imperfection** (so that repeated runs differ and pass@k has something to show):
with ``error_rate`` = p, the first step of a turn (the request that ends with the user's
message) makes a mistake when ``u < p``, where ``u`` in [0, 1) comes from a SHA-256 of the
request's messages, its ``user`` and ``seed`` fields and the model's ``salt``. Equal requests
therefore always get the same answer, while an agent that sends a different ``user`` (a session
id) or ``seed`` per run gets different mistakes per run; p = 0 never errs, p = 1 always does.
The kind is drawn from the same hash among the configured ``mistakes`` that apply to the
request (``wrong_tool`` needs another offered tool, ``wrong_arguments`` non-empty arguments):

* ``"wrong_tool"``: the first call goes to another offered tool (with the same arguments);
* ``"wrong_arguments"``: the first call's first argument (keys sorted) changes: a string loses
  its last character, a number grows by one, a boolean flips; any other value (or a
  one-character string) is dropped;
* ``"skip_tool"``: no call at all; the answer is the rule's ``guess``, else rule 4.

Later steps of the turn make no mistakes, so a ``parallel=False`` agent that called the wrong
tool calls the right one next. A mistaken completion has ``system_fingerprint``
``"scripted-agent+<kind>"``.

**Agents that speak tools in text** (opt-in, for frameworks such as smolagents'
``ToolCallingAgent``, which replay earlier calls and results as plain messages): with
``observations="Observation:"`` an assistant message whose text is ``"Calling tools:"`` and a
list of call objects (JSON or a Python ``repr``) counts as those calls, and a ``user`` message
right after calls whose text starts with the prefix is their result, not new user text (a user
message after calls to the finish tool only is new text: the next task). With
``finish_tool="final_answer"``, when the request offers that tool, a text answer (rules 3 and 4)
goes out as a call to it, the text under the tool's first required parameter (``answer`` when
the schema names none).

**Usage**: ``prompt_tokens`` = words in all request messages, ``completion_tokens`` = words in
the answer's content and tool-call arguments.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..offline_flags import SCRIPTED_AGENT_MODEL
from . import field_text
from .fake_server import completion, tool_call

__all__ = [
    "DEFAULT_FALLBACK",
    "MISTAKES",
    "SCRIPTED_AGENT_MODEL",
    "ScriptedAgentModel",
    "ToolRule",
]

DEFAULT_FALLBACK = "I am a scripted agent model (not an LLM) and have no answer to that."
MISTAKES = ("wrong_tool", "wrong_arguments", "skip_tool")
_FINGERPRINT = "scripted-agent"
_ERROR_PREFIXES = ("error:", "an error occurred", "execution error")

ArgumentsSpec = Mapping[str, Any] | str | re.Pattern[str] | Callable[[str], Mapping[str, Any]]


def _keyword_pattern(keyword: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + re.escape(keyword.strip().lower()))


@dataclass(frozen=True, slots=True)
class ToolRule:
    """Call ``tool`` when a keyword occurs in the user text (rules in the module doc).

    ``arguments``: a dict, a regex with named groups (str or compiled) or ``text -> dict``.
    ``say``: content sent along with the call (an intermediate response). ``answer``: the final
    answer template (``{result[...]}``, ``{arguments[...]}``, ``{tool}``). ``guess``: what the
    model answers when it skips the tool by mistake. ``recall``: a regex's groups that the user
    text lacks are taken from the conversation's earlier user messages (newest first), so the
    call is right only when the agent sent its memory of earlier turns.
    """

    tool: str
    keywords: Sequence[str]
    arguments: ArgumentsSpec | None = None
    say: str | None = None
    answer: str | None = None
    guess: str | None = None
    recall: bool = False
    _patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        keywords = (self.keywords,) if isinstance(self.keywords, str) else tuple(self.keywords)
        if not self.tool:
            raise ValueError("ToolRule needs a tool name")
        if not keywords or not all(isinstance(k, str) and k.strip() for k in keywords):
            raise ValueError(f"ToolRule({self.tool!r}) needs non-empty keyword strings")
        arguments = self.arguments
        if isinstance(arguments, str):
            arguments = re.compile(arguments)
        if arguments is not None and not (
            isinstance(arguments, Mapping | re.Pattern) or callable(arguments)
        ):
            raise TypeError(
                f"ToolRule({self.tool!r}).arguments must be a dict, a regex or a callable"
            )
        object.__setattr__(self, "keywords", keywords)
        object.__setattr__(self, "arguments", arguments)
        object.__setattr__(self, "_patterns", tuple(_keyword_pattern(k) for k in keywords))

    def matches(self, text: str) -> bool:
        """True when one of the keywords starts a word of ``text`` (case-insensitive)."""
        lowered = text.lower()
        return any(p.search(lowered) for p in self._patterns)

    def arguments_for(self, text: str, earlier: Sequence[str] = ()) -> dict[str, Any]:
        """The call's arguments for the user text ``text`` (``earlier``: the conversation's
        earlier user texts, newest first, read when :attr:`recall` is set)."""
        spec = self.arguments
        if spec is None:
            return {}
        if isinstance(spec, str | re.Pattern):
            out: dict[str, Any] = {}
            for source in (text, *(earlier if self.recall else ())):
                found = re.search(spec, source)
                groups = found.groupdict().items() if found is not None else ()
                for key, value in groups:
                    if value is not None:
                        out.setdefault(key, value)
            return out
        if isinstance(spec, Mapping):
            return dict(spec)
        produced = spec(text)
        if not isinstance(produced, Mapping):
            raise TypeError(
                f"ToolRule({self.tool!r}).arguments returned {type(produced).__name__}, not a dict"
            )
        return dict(produced)


def _text(content: Any) -> str:
    """A message content as text: a string, or the text parts of a part list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return "" if content is None else json.dumps(content, ensure_ascii=False)


_PY_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|\b(?:True|False|None)\b")
_PY_CONSTANTS = {"True": "true", "False": "false", "None": "null"}


def _python_token_as_json(found: re.Match[str]) -> str:
    token = found.group()
    if token in _PY_CONSTANTS:
        return _PY_CONSTANTS[token]
    if token.startswith("'"):
        inner = token[1:-1].replace("\\'", "'").replace('"', '\\"')
        return f'"{inner}"'
    return token


def _decode(text: str) -> Any:
    """``text`` as JSON; else, for a ``{…}`` / ``[…]`` text, as the ``repr`` of Python data
    (single-quoted strings, ``True`` / ``False`` / ``None`` rewritten to JSON; no ``eval``);
    else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        try:
            return json.loads(_PY_TOKEN.sub(_python_token_as_json, stripped))
        except ValueError:
            pass
    return text


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return str(value)


def _words(text: str | None) -> int:
    return len((text or "").split())


_TEXT_CALLS = "Calling tools:"


def _text_calls(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The call objects an assistant message lists as text after ``"Calling tools:"``."""
    text = _text(message.get("content")).lstrip()
    if not text.startswith(_TEXT_CALLS):
        return []
    calls = _decode(text[len(_TEXT_CALLS) :].strip())
    return [dict(c) for c in calls if isinstance(c, Mapping)] if isinstance(calls, list) else []


def _from_text_protocol(
    messages: list[Mapping[str, Any]], prefix: str, finish_tool: str | None
) -> list[Mapping[str, Any]]:
    """The messages with calls and results written as text rewritten as native ones: an
    assistant ``"Calling tools: [...]"`` text gets those ``tool_calls``; a user message starting
    with ``prefix`` right after calls (other than only to ``finish_tool``) becomes a ``tool``
    message answering them (the single call's id; no id when there were several)."""
    out: list[Mapping[str, Any]] = []
    before: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        text = _text(message.get("content")).lstrip()
        if role == "assistant":
            before = [*(message.get("tool_calls") or ()), *_text_calls(message)]
            out.append({**message, "tool_calls": before} if before else message)
            continue
        names = {str((call.get("function") or {}).get("name")) for call in before}
        if role == "user" and text.startswith(prefix) and names - {finish_tool}:
            result = text[len(prefix) :].strip()
            call_id = before[0].get("id") if len(before) == 1 else None
            out.append({"role": "tool", "tool_call_id": call_id, "content": result})
            continue
        before = []
        out.append(message)
    return out


@dataclass(slots=True)
class _Request:
    """The parts of a chat request the rules read."""

    messages: list[Mapping[str, Any]]
    offered: list[str]
    user_text: str
    turn: list[Mapping[str, Any]]
    earlier: list[str] = field(default_factory=list)
    """The user texts before :attr:`user_text`, newest first."""
    schemas: dict[str, Any] = field(default_factory=dict)
    """The offered tools' parameter schemas, by name."""
    prompt_words: int = 0
    """Words in the request's messages as sent."""

    @classmethod
    def parse(
        cls,
        request: Mapping[str, Any],
        observations: str | None = None,
        finish_tool: str | None = None,
    ) -> _Request:
        raw = request.get("messages")
        messages = [m for m in raw if isinstance(m, Mapping)] if isinstance(raw, list) else []
        words = sum(_words(_text(m.get("content"))) for m in messages)
        if observations is not None:
            messages = _from_text_protocol(messages, observations, finish_tool)
        offered: list[str] = []
        schemas: dict[str, Any] = {}
        if request.get("tool_choice") != "none":
            for entry in request.get("tools") or ():
                function = entry.get("function") if isinstance(entry, Mapping) else None
                if not isinstance(function, Mapping):
                    continue
                name = function.get("name")
                if isinstance(name, str) and name:
                    offered.append(name)
                    schemas[name] = function.get("parameters")
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        last_user = users[-1] if users else -1
        user_text = _text(messages[last_user].get("content")) if last_user >= 0 else ""
        earlier = [_text(messages[i].get("content")) for i in reversed(users[:-1])]
        turn = messages[last_user + 1 :]
        return cls(messages, offered, user_text, turn, earlier, schemas, words)

    def calls(self, messages: Iterable[Mapping[str, Any]]) -> list[tuple[str, str, Any]]:
        """``(id, name, decoded arguments)`` of the assistant tool calls in ``messages``."""
        found = []
        for message in messages:
            if message.get("role") != "assistant":
                continue
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                arguments = function.get("arguments")
                decoded = _decode(arguments) if isinstance(arguments, str) else arguments
                found.append((str(call.get("id")), str(function.get("name")), decoded))
        return found

    def results(self) -> list[tuple[str, Any, str]]:
        """``(tool name, decoded arguments, result text)`` of this turn's tool messages."""
        by_id = {cid: (name, args) for cid, name, args in self.calls(self.turn)}
        out = []
        for message in self.turn:
            if message.get("role") != "tool":
                continue
            name, args = by_id.get(str(message.get("tool_call_id")), (None, None))
            out.append(
                (name or str(message.get("name") or "tool"), args, _text(message.get("content")))
            )
        return out


class ScriptedAgentModel:
    """The scripted agent model (rules in the module doc); a fake-server handler.

    ``ScriptedAgentModel(rules, answers={keyword: text}, fallback=..., error_rate=0.0,
    mistakes=MISTAKES, parallel=True, salt="", observations=None, finish_tool=None)``; serve it
    with
    ``FakeOpenAIServer(handler=model)`` and point the agent at ``model=SCRIPTED_AGENT_MODEL``.
    """

    def __init__(
        self,
        rules: Iterable[ToolRule] = (),
        *,
        answers: Mapping[str, str] | None = None,
        fallback: str = DEFAULT_FALLBACK,
        error_rate: float = 0.0,
        mistakes: Sequence[str] = MISTAKES,
        parallel: bool = True,
        salt: str = "",
        name: str = SCRIPTED_AGENT_MODEL,
        observations: str | None = None,
        finish_tool: str | None = None,
    ) -> None:
        self.rules = list(rules)
        for rule in self.rules:
            if not isinstance(rule, ToolRule):
                raise TypeError(f"rules must be ToolRule objects, got {type(rule).__name__}")
        if not 0.0 <= float(error_rate) <= 1.0:
            raise ValueError(f"error_rate must be in [0, 1], got {error_rate!r}")
        unknown = [m for m in mistakes if m not in MISTAKES]
        if unknown or not mistakes:
            raise ValueError(f"mistakes must be a non-empty subset of {MISTAKES}, got {mistakes!r}")
        self.answers = [(_keyword_pattern(k), text) for k, text in (answers or {}).items()]
        self.fallback = fallback
        self.error_rate = float(error_rate)
        self.mistakes = tuple(mistakes)
        self.parallel = parallel
        self.salt = salt
        self.name = name
        self.observations = observations
        self.finish_tool = finish_tool

    def __repr__(self) -> str:
        tools = [r.tool for r in self.rules]
        return (
            f"ScriptedAgentModel(not an LLM, tools={tools}, error_rate={self.error_rate}, "
            f"parallel={self.parallel})"
        )

    # entry points --------------------------------------------------------------------------

    def handler(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one chat-completions request body with a ``chat.completion`` dict."""
        parsed = _Request.parse(request, self.observations, self.finish_tool)
        fields = field_text.read(parsed.user_text)
        if fields is not None:
            return self._field_reply(fields, parsed)
        called = {name for _, name, _ in parsed.calls(parsed.turn)}
        pending = [
            r
            for r in self.rules
            if r.tool in parsed.offered and r.tool not in called and r.matches(parsed.user_text)
        ]
        draw = self._draw(request)
        kind = self._mistake(draw, pending, parsed) if pending and not parsed.turn else None
        if pending and kind != "skip_tool":
            return self._call(pending, parsed, draw, kind)
        if parsed.turn and parsed.results():
            return self._finish(self._final(parsed.results()), parsed, kind)
        guess = pending[0].guess if kind == "skip_tool" else None
        return self._finish(guess or self._answer(parsed.user_text), parsed, kind)

    __call__ = handler

    # rules ---------------------------------------------------------------------------------

    def _draw(self, request: Mapping[str, Any]) -> tuple[float, float, float]:
        """Three numbers in [0, 1) from a SHA-256 of messages, ``user``, ``seed`` and salt."""
        key = json.dumps(
            [request.get("messages"), request.get("user"), request.get("seed"), self.salt],
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        digest = hashlib.sha256(key.encode()).digest()
        scale = float(1 << 64)
        u, v, w = (int.from_bytes(digest[i : i + 8], "big") / scale for i in (0, 8, 16))
        return u, v, w

    def _mistake(
        self, draw: tuple[float, float, float], pending: list[ToolRule], parsed: _Request
    ) -> str | None:
        """The mistake of this first step (``None``: none), among the kinds that apply."""
        u, v, _ = draw
        if u >= self.error_rate:
            return None
        first = pending[0]
        kinds = []
        for kind in self.mistakes:
            if kind == "wrong_tool" and all(t == first.tool for t in parsed.offered):
                continue
            if kind == "wrong_arguments" and not first.arguments_for(
                parsed.user_text, parsed.earlier
            ):
                continue
            kinds.append(kind)
        return kinds[min(int(v * len(kinds)), len(kinds) - 1)] if kinds else None

    def _call(
        self,
        pending: list[ToolRule],
        parsed: _Request,
        draw: tuple[float, float, float],
        kind: str | None,
    ) -> dict[str, Any]:
        chosen = pending if self.parallel else pending[:1]
        planned = [(r.tool, r.arguments_for(parsed.user_text, parsed.earlier)) for r in chosen]
        if kind == "wrong_tool":
            others = [t for t in parsed.offered if t != chosen[0].tool]
            pick = others[min(int(draw[2] * len(others)), len(others) - 1)]
            planned[0] = (pick, planned[0][1])
        elif kind == "wrong_arguments":
            planned[0] = (planned[0][0], _garble(planned[0][1]))
        start = len(parsed.calls(parsed.messages)) + 1
        calls = [
            tool_call(f"call_{start + i}", name, args) for i, (name, args) in enumerate(planned)
        ]
        content = chosen[0].say
        out_words = _words(content) + sum(_words(c["function"]["arguments"]) for c in calls)
        body = completion(
            content, model=self.name, usage=self._usage(parsed, out_words), tool_calls=calls
        )
        body["system_fingerprint"] = _fingerprint(kind)
        return body

    def _final(self, results: Iterable[tuple[str, Any, str]]) -> str:
        templates: dict[str, str] = {}
        for rule in self.rules:
            if rule.answer is not None:
                templates.setdefault(rule.tool, rule.answer)
        sentences = []
        for tool, arguments, text in results:
            if text.strip().lower().startswith(_ERROR_PREFIXES):
                sentences.append(f"Sorry, I could not complete {tool}: {text.strip()}.")
                continue
            result = _decode(text)
            sentence = None
            if tool in templates:
                try:
                    sentence = templates[tool].format(
                        result=result, arguments=arguments or {}, tool=tool
                    )
                except (KeyError, IndexError, TypeError, AttributeError, ValueError):
                    sentence = None
            sentences.append(sentence or f"Result of {tool}: {_compact(result)}.")
        return " ".join(sentences)

    def _field_reply(self, message: field_text.FieldMessage, parsed: _Request) -> dict[str, Any]:
        """A request in DSPy's field-marker text protocol, answered by the same rules (module
        doc): the next ReAct step, or the output fields."""
        question = message.question
        earlier = [m.question if (m := field_text.read(t)) else t for t in parsed.earlier]
        steps = list(message.steps())
        values: dict[str, str]
        if "next_tool_name" in message.wanted:
            called = {name for name, _, _ in steps}
            pending = [
                r
                for r in self.rules
                if r.tool in message.tool_names and r.tool not in called and r.matches(question)
            ]
            if pending:
                rule = pending[0]
                arguments = rule.arguments_for(question, earlier)
                values = {
                    "next_thought": rule.say or f"I call {rule.tool}.",
                    "next_tool_name": rule.tool,
                    "next_tool_args": json.dumps(arguments, ensure_ascii=False),
                }
            else:
                values = {
                    "next_thought": "I have what I need.",
                    "next_tool_name": field_text.FINISH,
                    "next_tool_args": "{}",
                }
        else:
            results = [
                (name, _decode(arguments), observation)
                for name, arguments, observation in steps
                if name != field_text.FINISH
            ]
            answer = self._final(results) if results else self._answer(question)
            values = {"reasoning": "Scripted, not an LLM."}
            values.update({name: answer for name in message.wanted if name != "reasoning"})
        content = field_text.reply({name: values.get(name, "") for name in message.wanted})
        return self._finish(content, parsed, None)

    def _answer(self, user_text: str) -> str:
        lowered = user_text.lower()
        for pattern, text in self.answers:
            if pattern.search(lowered):
                return text
        return self.fallback

    def _finish(self, content: str, parsed: _Request, kind: str | None) -> dict[str, Any]:
        if self.finish_tool is not None and self.finish_tool in parsed.offered:
            return self._finish_by_tool(content, parsed, kind)
        body = completion(content, model=self.name, usage=self._usage(parsed, _words(content)))
        body["system_fingerprint"] = _fingerprint(kind)
        return body

    def _finish_by_tool(self, content: str, parsed: _Request, kind: str | None) -> dict[str, Any]:
        """The answer as a call to :attr:`finish_tool` (its first required parameter)."""
        parameter = _first_required(parsed.schemas.get(str(self.finish_tool)))
        call_id = f"call_{len(parsed.calls(parsed.messages)) + 1}"
        call = tool_call(call_id, str(self.finish_tool), {parameter: content})
        usage = self._usage(parsed, _words(call["function"]["arguments"]))
        body = completion(None, model=self.name, usage=usage, tool_calls=[call])
        body["system_fingerprint"] = _fingerprint(kind)
        return body

    @staticmethod
    def _usage(parsed: _Request, completion_tokens: int) -> dict[str, int]:
        prompt = parsed.prompt_words
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt + completion_tokens,
        }


def _first_required(schema: Any) -> str:
    """The first required parameter of a function's JSON schema; ``"answer"`` without one."""
    required = schema.get("required") if isinstance(schema, Mapping) else None
    if isinstance(required, list) and required and isinstance(required[0], str):
        return required[0]
    return "answer"


def _fingerprint(kind: str | None) -> str:
    return _FINGERPRINT if kind is None else f"{_FINGERPRINT}+{kind}"


def _garble(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments with one mistake (the first key in sorted order; rule in module doc)."""
    out = dict(arguments)
    if not out:
        return out
    key = sorted(out)[0]
    value = out[key]
    if isinstance(value, bool):
        out[key] = not value
    elif isinstance(value, int | float):
        out[key] = value + 1
    elif isinstance(value, str) and len(value) > 1:
        out[key] = value[:-1]
    else:
        del out[key]
    return out
