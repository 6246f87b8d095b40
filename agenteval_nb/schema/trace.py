"""Execution trace of an invocation (SPEC §1.3).

The Go structs have no JSON tags, so keys are the Go field names (PascalCase, ``ID`` suffixes);
``Usage`` is snake_case. Times are RFC3339 strings. Go writes every key of these structs, nil
ones as ``null``; a key read as ``null`` is written back as ``null`` (:class:`KeepNullModel`).
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from .base import KeepNullModel


class _PascalModel(KeepNullModel):
    model_config = ConfigDict(
        alias_generator=lambda name: "".join(p.title() for p in name.split("_"))
    )


class Snapshot(_PascalModel):
    text: str | None = None


class _SnakeModel(KeepNullModel):
    model_config = ConfigDict(alias_generator=None)


class PromptTokensDetails(_SnakeModel):
    cached_tokens: int | None = None
    cache_creation_tokens: int | None = None
    cache_read_tokens: int | None = None


class CompletionTokensDetails(_SnakeModel):
    reasoning_tokens: int | None = None


class Usage(_SnakeModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None
    prompt_tokens_details: PromptTokensDetails | None = None
    completion_tokens_details: CompletionTokensDetails | None = None
    timing_info: Any = None


class TraceTool(_PascalModel):
    id: str | None = Field(default=None, alias="ID")
    name: str | None = None
    arguments: Any = None
    result: Any = None
    error: str | None = None


class Skill(_PascalModel):
    name: str | None = None


class Step(_PascalModel):
    step_id: str | None = Field(default=None, alias="StepID")
    invocation_id: str | None = Field(default=None, alias="InvocationID")
    parent_invocation_id: str | None = Field(default=None, alias="ParentInvocationID")
    agent_name: str | None = None
    branch: str | None = None
    node_id: str | None = Field(default=None, alias="NodeID")
    node_type: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    predecessor_step_ids: list[str] | None = Field(default=None, alias="PredecessorStepIDs")
    applied_surface_ids: list[str] | None = Field(default=None, alias="AppliedSurfaceIDs")
    input: Snapshot | None = None
    output: Snapshot | None = None
    usage: Usage | None = None
    tools: list[TraceTool] | None = None
    skills: list[Skill] | None = None
    error: str | None = None


class Trace(_PascalModel):
    root_agent_name: str | None = None
    root_invocation_id: str | None = Field(default=None, alias="RootInvocationID")
    session_id: str | None = Field(default=None, alias="SessionID")
    started_at: str | None = None
    ended_at: str | None = None
    status: str | None = None
    input: Snapshot | None = None
    output: Snapshot | None = None
    usage: Usage | None = None
    steps: list[Step] | None = None
