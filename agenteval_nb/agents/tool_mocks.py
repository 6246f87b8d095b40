"""Tool mocks of an invocation (``toolMock.actual`` / ``toolMock.expected``, SPEC §8.3).

Validation, per rule in order (the first problem fails the case's inference):

* ``name`` required; ``arguments.ignore`` cannot be combined with ``expected``, ``onlyTree``,
  ``ignoreTree`` or ``numberTolerance``; otherwise ``arguments.expected`` is required (when
  ``arguments`` is given); ``onlyTree`` and ``ignoreTree`` not both; ``numberTolerance >= 0``;
* a static rule needs ``result``; an ``llmGenerator`` rule needs a ``prompt``, a tool-mock
  agent (``tool_mock_agent=``) and no ``result``.

Matching a call of tool ``n``: a tool without rules runs for real. Otherwise the rules of ``n``
are tried in order: no ``arguments`` or ``ignore`` ⇒ match; else the JSON criterion
``{onlyTree, ignoreTree, numberTolerance}`` compares the decoded call arguments with
``expected`` — tolerance **0** when unset (not the metric default 1e-6); raw non-JSON arguments
compare as strings. The first match answers with its static ``result`` or the generator's
output; no match ⇒ the tool fails with ``tool "<n>" configured for mock but no rule matched``
(``: <last mismatch>`` appended when there was one).

Generator: the tool-mock agent gets the rule's prompt as a system context message, the raw
call arguments (``{}`` when empty) as the user message and, when the mocked tool declares a
result type that is a JSON object, its schema as ``turn.output_schema`` (``OpenAIAgent`` sends
it as structured output); its final text is JSON-decoded (non-JSON text is kept as text; empty
text or ``null`` is an error).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..criteria.jsoncmp import json_reason
from ..schema import JSONCriterion, Message, ToolMockTool, message_text
from .base import Agent
from .capture.attribution import outside
from .tools import NOT_INTERCEPTED, Mocked, ToolBox
from .turn import Session, to_invocation


class ToolMockError(ValueError):
    """A tool-mock rule is invalid."""


def validate_rules(rules: Sequence[ToolMockTool], *, generator_available: bool) -> None:
    """Raise :class:`ToolMockError` for the first invalid rule (rules in the module doc)."""
    for index, rule in enumerate(rules):
        name = (rule.name or "").strip()
        where = f"tool mock rule {index} ({name})" if name else f"tool mock rule {index}"
        if not name:
            raise ToolMockError(f"{where}: name is required")
        args = rule.arguments
        if args is not None:
            if args.ignore:
                if (
                    args.expected is not None
                    or args.only_tree
                    or args.ignore_tree
                    or args.number_tolerance is not None
                ):
                    raise ToolMockError(
                        f"{where}: arguments.ignore cannot be combined with expected, "
                        "onlyTree, ignoreTree or numberTolerance"
                    )
            else:
                if args.expected is None:
                    raise ToolMockError(f"{where}: arguments.expected is required")
                if args.only_tree and args.ignore_tree:
                    raise ToolMockError(
                        f"{where}: onlyTree and ignoreTree cannot be set at the same time"
                    )
                if args.number_tolerance is not None and args.number_tolerance < 0:
                    raise ToolMockError(f"{where}: numberTolerance must be >= 0")
        if rule.llm_generator is not None:
            if not (rule.llm_generator.prompt or "").strip():
                raise ToolMockError(f"{where}: llmGenerator requires a prompt")
            if rule.result is not None:
                raise ToolMockError(f"{where}: llmGenerator cannot be combined with result")
            if not generator_available:
                raise ToolMockError(
                    f"{where}: llmGenerator requires a tool mock runner (tool_mock_agent=)"
                )
        elif rule.result is None:
            raise ToolMockError(f"{where}: result is required for a static rule")


def _mismatch(rule: ToolMockTool, arguments: Any) -> str | None:
    """``None`` when ``rule`` matches the call ``arguments``, else why not."""
    args = rule.arguments
    if args is None or args.ignore:
        return None
    criterion = JSONCriterion(
        only_tree=args.only_tree,
        ignore_tree=args.ignore_tree,
        number_tolerance=args.number_tolerance,
    )
    reason = json_reason(criterion, arguments, args.expected, default_tolerance=0.0)
    return None if reason is None else reason()


@dataclass(slots=True)
class ToolMockInterceptor:
    """The interceptor of one invocation's rules (see :class:`~.tools.ToolBox`)."""

    rules: Sequence[ToolMockTool]
    generator: Agent | None = None
    side: str = "actual"
    output_schemas: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    """Result schemas of the agent's tools by name (the generator's structured output)."""

    @property
    def names(self) -> frozenset[str]:
        """The tools these rules answer."""
        return frozenset((r.name or "").strip() for r in self.rules)

    def pick(self, name: str, arguments: Any) -> tuple[int, ToolMockTool] | None:
        """The first rule of tool ``name`` matching ``arguments`` (index and rule); ``None``
        when no rule names the tool; ``LookupError`` when rules name it but none matches."""
        last: str | None = None
        named = False
        for index, rule in enumerate(self.rules):
            if (rule.name or "").strip() != name:
                continue
            named = True
            mismatch = _mismatch(rule, arguments)
            if mismatch is None:
                return index, rule
            last = mismatch
        if not named:
            return None
        suffix = f": {last}" if last else ""
        raise LookupError(f'tool "{name}" configured for mock but no rule matched{suffix}')

    async def __call__(self, name: str, arguments: Any) -> Any:
        picked = self.pick(name, arguments)
        if picked is None:
            return NOT_INTERCEPTED
        index, rule = picked
        note = {"side": self.side, "rule": index}
        if rule.llm_generator is not None:
            note["kind"] = "llmGenerator"
            with outside():  # the generator's model calls are not the agent's
                result = await self._generate(rule, arguments, self.output_schemas.get(name))
            return Mocked(result, note)
        note["kind"] = "static"
        return Mocked(rule.result, note)

    async def _generate(
        self, rule: ToolMockTool, arguments: Any, schema: dict[str, Any] | None
    ) -> Any:
        if self.generator is None:  # validated before the turn runs
            raise ToolMockError("llmGenerator requires a tool mock runner")
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
        if not raw or raw in ("null", "{}"):
            raw = "{}"
        session = Session(
            session_id=f"tool-mock-{uuid.uuid4()}",
            user_id=None,
            state={},
            context_messages=[Message(role="system", content=rule.llm_generator.prompt)],  # type: ignore[union-attr]
        )
        turn = session.turn(Message(role="user", content=raw), ToolBox(), "tool-mock", 0)
        turn.output_schema = schema
        invocation = to_invocation(await self.generator.run_turn(turn), turn)
        text = message_text(invocation.final_response).strip()
        if not text:
            raise ToolMockError("tool mock generator returned an empty response")
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if value is None:
            raise ToolMockError("tool mock generator returned null")
        return value
