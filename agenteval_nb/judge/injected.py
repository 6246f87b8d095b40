"""A user-supplied judge standing in for the HTTP endpoint.

Rules:

* the judge is any callable ``judge(messages, structured_output=None)``: a function, a
  coroutine function, or an object with a sync or async ``__call__``; ``structured_output`` is
  passed (as ``{"type": "json_schema", "json_schema": {...}}``) only when requested, and a judge
  whose signature cannot take it then fails with ``unsupported structured output``;
* a sync judge runs in a worker thread (``asyncio.to_thread``) so it cannot stall the event
  loop; an awaitable it returns is awaited;
* the return value may be an openai ``ChatCompletion``, any pydantic model or dict of the same
  shape, or a plain ``str`` (taken as the message content); it is normalised and validated like
  an HTTP response (:mod:`.response`);
* injected judges are never cached: the caller's judge may be stateful or deliberately random.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .judge_errors import JudgeError, shorten
from .request import response_format
from .response import normalize_completion

ORIGIN = "injected judge"


def _is_async(fn: Callable[..., Any]) -> bool:
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004 - objects with an async __call__
    return call is not None and inspect.iscoroutinefunction(call)


def _accepts_structured_output(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(
        p.kind is p.VAR_KEYWORD
        or (p.name == "structured_output" and p.kind is not p.POSITIONAL_ONLY)
        for p in params
    )


def text_completion(content: str, model: str = "injected-judge") -> dict[str, Any]:
    """A minimal completion dict around ``content``."""
    return {
        "id": "injected",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": None,
    }


class CallableJudge:
    """Adapter from a user callable to the judge interface (rules in the module doc)."""

    def __init__(self, judge: Callable[..., Any] | CallableJudge) -> None:
        inner = judge.judge if isinstance(judge, CallableJudge) else judge
        if not callable(inner):
            raise TypeError(f"a judge must be callable, got {type(inner).__name__}")
        self.judge: Callable[..., Any] = inner
        self._is_async = _is_async(inner)
        self._takes_structured = _accepts_structured_output(inner)

    def __repr__(self) -> str:
        name = getattr(self.judge, "__qualname__", type(self.judge).__qualname__)
        return f"CallableJudge({name})"

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        structured_output: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Call the judge and return its validated completion dict."""
        kwargs: dict[str, Any] = {}
        if structured_output is not None:
            fmt = response_format(structured_output)
            if fmt.get("type") != "json_schema" or not isinstance(fmt.get("json_schema"), dict):
                raise JudgeError("unsupported structured output for judge runner", kind="config")
            if not self._takes_structured:
                raise JudgeError(
                    "unsupported structured output for judge runner: the injected judge does "
                    "not accept a structured_output argument",
                    kind="config",
                )
            kwargs["structured_output"] = fmt
        plain = [dict(m) for m in messages]
        try:
            if self._is_async:
                result = await self.judge(plain, **kwargs)
            else:
                result = await asyncio.to_thread(self.judge, plain, **kwargs)
            if inspect.isawaitable(result):
                result = await result
        except JudgeError:
            raise
        except Exception as exc:
            detail = shorten(f"{type(exc).__name__}: {exc}")
            raise JudgeError(f"{ORIGIN} failed: {detail}", kind="injected") from exc
        if isinstance(result, str):
            result = text_completion(result)
        return normalize_completion(result, ORIGIN)
