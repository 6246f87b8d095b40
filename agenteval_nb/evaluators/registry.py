"""Evaluator registry: evaluators by name, plus the compare and tokenizer hooks (SPEC §2, §8.2).

There is no process-global mutable registry: :meth:`Registry.default` returns a fresh registry
holding the built-ins, which callers may extend without affecting anyone else. Built-ins are
registered as factories and built on first use, so importing the package stays light.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from typing import Any

from ..criteria.hooks import CompareFn, Hooks, TokenizerFn
from ..errors import ConfigError
from ..schema import EvalMetric
from .base import Evaluator

_BUILTINS: dict[str, str] = {
    "tool_trajectory_avg_score": "agenteval_nb.evaluators.deterministic:ToolTrajectoryEvaluator",
    "final_response_avg_score": "agenteval_nb.evaluators.deterministic:FinalResponseEvaluator",
    "llm_final_response": (
        "agenteval_nb.evaluators.llm.final_response_judge:LLMFinalResponseEvaluator"
    ),
    "llm_rubric_critic": "agenteval_nb.evaluators.llm.rubric_judges:LLMRubricCriticEvaluator",
    "llm_rubric_response": "agenteval_nb.evaluators.llm.rubric_judges:LLMRubricResponseEvaluator",
    "llm_rubric_reference_critic": (
        "agenteval_nb.evaluators.llm.rubric_judges:LLMRubricReferenceCriticEvaluator"
    ),
    "llm_rubric_knowledge_recall": (
        "agenteval_nb.evaluators.llm.rubric_judges:LLMRubricKnowledgeRecallEvaluator"
    ),
    "llm_hallucinations": (
        "agenteval_nb.evaluators.llm.hallucinations_judge:LLMHallucinationsEvaluator"
    ),
    "llm_judge_template": "agenteval_nb.evaluators.llm.template_judge:LLMJudgeTemplateEvaluator",
    "llm_verifier_pairwise": (
        "agenteval_nb.evaluators.llm.verifier_judge:LLMVerifierPairwiseEvaluator"
    ),
}
"""Built-in evaluator name → ``module:factory`` (imported on first use)."""


class UnknownEvaluatorError(KeyError):
    """No evaluator is registered under the name."""


def _load(target: str) -> Callable[[], Evaluator]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


class Registry:
    """Evaluators, compare functions (``compareName``) and tokenizers (``tokenizerName``)."""

    def __init__(self) -> None:
        self._evaluators: dict[str, Evaluator | Callable[[], Evaluator]] = {}
        self._compare: dict[str, CompareFn] = {}
        self._tokenizers: dict[str, TokenizerFn] = {}

    @classmethod
    def default(cls) -> Registry:
        """A fresh registry with every built-in evaluator."""
        reg = cls()
        for name, target in _BUILTINS.items():
            reg._evaluators[name] = _LazyFactory(target)
        return reg

    def copy(self) -> Registry:
        """An independent registry with the same entries."""
        reg = Registry()
        reg._evaluators = dict(self._evaluators)
        reg._compare = dict(self._compare)
        reg._tokenizers = dict(self._tokenizers)
        return reg

    def register(self, name: str | None, evaluator: Evaluator) -> None:
        """Register (or replace) an evaluator; an empty name means ``evaluator.name``."""
        key = name or getattr(evaluator, "name", "")
        if not key:
            raise ConfigError("evaluator name is empty")
        if not callable(getattr(evaluator, "evaluate", None)):
            raise ConfigError(f"evaluator {key!r} has no evaluate method")
        self._evaluators[key] = evaluator

    def register_compare(self, name: str, fn: CompareFn) -> None:
        """Register a compare function for ``compareName``: ``fn(actual, expected) -> bool``."""
        self._compare[name] = fn

    def register_tokenizer(self, name: str, fn: TokenizerFn) -> None:
        """Register a ROUGE tokenizer for ``tokenizerName``: ``fn(text) -> list[str]``."""
        self._tokenizers[name] = fn

    def get(self, name: str) -> Evaluator:
        """The evaluator registered under ``name`` (``UnknownEvaluatorError`` otherwise)."""
        entry = self._evaluators.get(name)
        if entry is None:
            raise UnknownEvaluatorError(name)
        if isinstance(entry, _LazyFactory):
            entry = entry()
            self._evaluators[name] = entry
        return entry  # type: ignore[return-value]

    def lookup(self, metric: EvalMetric) -> Evaluator | None:
        """The evaluator for a metric (``evaluatorName`` else ``metricName``), or ``None``."""
        try:
            return self.get(metric.evaluator_key)
        except UnknownEvaluatorError:
            return None

    def names(self) -> list[str]:
        return sorted(self._evaluators)

    def __contains__(self, name: object) -> bool:
        return name in self._evaluators

    def hooks(self) -> Hooks:
        """The compare functions and tokenizers, frozen for one evaluation."""
        return Hooks(compare=dict(self._compare), tokenizers=dict(self._tokenizers))

    def resolve_names(self, metrics: Iterable[EvalMetric]) -> None:
        """Check every ``compareName`` / ``tokenizerName`` used by the metrics is registered.

        An unknown name fails the whole evaluation (SPEC §8.2), with a ``ConfigError``.
        """
        for metric in metrics:
            for kind, name in _hook_names(metric):
                table = self._tokenizers if kind == "tokenizer" else self._compare
                if name not in table:
                    raise ConfigError(
                        f"metric {metric.metric_name}: {kind} {name!r} is not registered"
                    )

    def __repr__(self) -> str:
        return f"Registry(evaluators={self.names()})"


class _LazyFactory:
    __slots__ = ("target",)

    def __init__(self, target: str) -> None:
        self.target = target

    def __call__(self) -> Evaluator:
        return _load(self.target)()


def _hook_names(metric: EvalMetric) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    crit = metric.criterion
    if crit is None:
        return found
    traj = crit.tool_trajectory
    if traj is not None:
        if traj.compare_name:
            found.append(("compare", traj.compare_name))
        strategies: list[Any] = [traj.default_strategy, *(traj.tool_strategy or {}).values()]
        for strategy in strategies:
            if strategy is None:
                continue
            for sub in (strategy.name, strategy.arguments, strategy.result):
                if sub is not None and sub.compare_name:
                    found.append(("compare", sub.compare_name))
    final = crit.final_response
    if final is not None:
        if final.compare_name:
            found.append(("compare", final.compare_name))
        for sub in (final.text, final.json_):
            if sub is not None and sub.compare_name:
                found.append(("compare", sub.compare_name))
        if final.rouge is not None and final.rouge.tokenizer_name:
            found.append(("tokenizer", final.rouge.tokenizer_name))
    return found
