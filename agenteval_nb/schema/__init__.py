"""pydantic v2 wire models of every file format (SPEC §1): camelCase keys, snake_case attributes."""

from .base import WireModel
from .evalset import (
    ArgumentsMatch,
    ConversationScenario,
    EvalCase,
    EvalCaseRubric,
    EvalSet,
    Invocation,
    LLMGenerator,
    SessionInput,
    Tool,
    ToolMock,
    ToolMockTool,
)
from .message import ContentPart, FunctionCall, Message, ToolCall, message_text
from .metric import (
    DEFAULT_GENERATION_CONFIG,
    CategoryScore,
    Criterion,
    EvalMetric,
    FinalResponseCriterion,
    GenerationConfig,
    JSONCriterion,
    JudgeModelOptions,
    JudgeTemplateOptions,
    LengthCriterion,
    LLMCriterion,
    ResponseScorerOptions,
    RougeCriterion,
    RougeThreshold,
    Rubric,
    RubricContent,
    TextCriterion,
    ToolStrategy,
    ToolTrajectoryCriterion,
    VariableBinding,
    XMLCriterion,
)
from .result import (
    CaseRunMetricResult,
    CaseRunSummary,
    CaseSummary,
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalSetResultSummary,
    MetricSummary,
    RubricScore,
    RunSummary,
    ScoreValue,
    StatusCounts,
)
from .status import EvalStatus, status_for, summarize_statuses
from .trace import Skill, Snapshot, Step, Trace, TraceTool, Usage

__all__ = [name for name in dir() if not name.startswith("_")]
