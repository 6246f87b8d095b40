"""Judge client over the openai package: requests, cache, retries, limits, usage accounting.

Typical use::

    async with JudgeClient(cache=True) as judge:
        call = await judge.complete(metric.criterion.llm_judge.judge_model, messages)
        call.content, call.response, call.cache_hit, judge.usage.as_dict()
"""

from .adaptive import Adaptive, AdaptiveController
from .budget import Budget, BudgetExhausted
from .cache import JudgeCache, cache_key, default_cache_path, open_cache
from .call import JudgeCall
from .client import JudgeCacheWarning, JudgeClient
from .injected import CallableJudge
from .judge_errors import JudgeError
from .limiter import EndpointLimiter
from .panel import JudgePanel, OpenPanel, PanelDecision, Vote, open_panel
from .request import Endpoint, JudgeRequest, build_request
from .response import normalize_completion
from .usage import JudgeUsage, UsageTotals

__all__ = [
    "Adaptive",
    "AdaptiveController",
    "Budget",
    "BudgetExhausted",
    "CallableJudge",
    "Endpoint",
    "EndpointLimiter",
    "JudgeCache",
    "JudgeCacheWarning",
    "JudgeCall",
    "JudgeClient",
    "JudgeError",
    "JudgePanel",
    "JudgeRequest",
    "JudgeUsage",
    "OpenPanel",
    "PanelDecision",
    "UsageTotals",
    "Vote",
    "build_request",
    "cache_key",
    "default_cache_path",
    "normalize_completion",
    "open_cache",
    "open_panel",
]
