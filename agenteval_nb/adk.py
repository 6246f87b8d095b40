"""Conversion of google-adk / trpc-agent-python files to the Go (canonical) shape.

Eval sets (:func:`adk_to_evalset`, for the snake_case or ``parts`` shape):

* keys in snake_case (``eval_set_id``, ``eval_cases``, ``user_content`` …) become camelCase;
* messages ``{role, parts: [{text}, …]}`` become ``{role, content}`` with the text parts joined
  by ``""`` (non-text parts are dropped); role ``model`` becomes ``assistant``;
* ``intermediateData.toolUses`` (``{id, name, args}``) and ``toolResponses``
  (``{id, name, response}``) become ``tools`` (``{id, name, arguments, result}``); a response is
  paired with the use of the same id, else with the first unpaired use of the same name;
* ``intermediateData.intermediateResponses`` and ADK-only keys (``finalSessionState`` …) are
  kept as unknown keys, so nothing is lost;
* a case without ``sessionInput`` gets :func:`default_session_input` (these frameworks create a
  session themselves; the Go rule "session input is nil" would fail every case). Go-format
  files are not converted and keep the Go rule.

google-adk's older ``*.test.json`` (:func:`adk_test_to_evalset`): a JSON array of turns
``{query, expected_tool_use: [{tool_name, tool_input}], expected_intermediate_agent_responses:
[{author, text}], reference}`` is one case (id = the file name); an array of
``{name, data: [turns], initial_session}`` is one case per item.

``test_config.json`` criteria (:func:`criteria_to_metrics`): see :data:`CRITERIA`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic.alias_generators import to_camel, to_snake

from .errors import FormatError

DEFAULT_USER_ID = "user"
DEFAULT_APP_NAME = "trace"


def default_session_input(eval_set_id: Any) -> dict[str, Any]:
    """Session input of a converted case that has none: app name = the eval set id (else
    ``"trace"``), user id ``"user"``, empty state."""
    app = eval_set_id if isinstance(eval_set_id, str) and eval_set_id else DEFAULT_APP_NAME
    return {"appName": app, "userId": DEFAULT_USER_ID, "state": {}}


def looks_like_adk(data: Any) -> bool:
    """True for an ADK-shaped eval set: snake_case top-level keys or ``parts`` messages."""
    if not isinstance(data, dict):
        return False
    if "eval_set_id" in data or "eval_cases" in data:
        return True
    cases = data.get("evalCases")
    if not isinstance(cases, list):
        return False
    for case in cases[:5]:
        turns = case.get("conversation") if isinstance(case, dict) else None
        for inv in turns if isinstance(turns, list) else ():
            if not isinstance(inv, dict):
                continue
            if "intermediateData" in inv or "intermediate_data" in inv:
                return True
            user = inv.get("userContent") or inv.get("user_content")
            if isinstance(user, dict) and "parts" in user:
                return True
    return False


def _camel_keys(obj: dict[Any, Any]) -> dict[Any, Any]:
    return {to_camel(k) if isinstance(k, str) and "_" in k else k: v for k, v in obj.items()}


def _message(value: Any, source: str, path: str) -> Any:
    if not isinstance(value, dict) or "parts" not in value:
        return value
    parts = value.get("parts") or []
    if not isinstance(parts, list):
        raise FormatError(source, f"{path}.parts", "an array of parts")
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    role = value.get("role") or ""
    message: dict[str, Any] = {"role": "assistant" if role == "model" else role}
    if texts:
        message["content"] = "".join(texts)
    return message


def _objects(data: dict[str, Any], key: str, source: str, path: str) -> list[dict[str, Any]]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise FormatError(source, f"{path}.{key}", "an array of objects")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise FormatError(source, f"{path}.{key}[{i}]", "an object")
    return [_camel_keys(item) for item in value]


def _tools(data: dict[str, Any], source: str, path: str) -> list[dict[str, Any]]:
    uses = _objects(data, "toolUses", source, path)
    responses = _objects(data, "toolResponses", source, path)
    tools = []
    for use in uses:
        tool = {"id": use.get("id"), "name": use.get("name"), "arguments": use.get("args")}
        tools.append({k: v for k, v in tool.items() if v is not None})
    paired: set[int] = set()
    for response in responses:
        match = None
        for i, use in enumerate(uses):
            if i not in paired and response.get("id") and use.get("id") == response.get("id"):
                match = i
                break
        if match is None:
            for i, use in enumerate(uses):
                if i not in paired and use.get("name") == response.get("name"):
                    match = i
                    break
        if match is None:
            tool = {"id": response.get("id"), "name": response.get("name")}
            tools.append({k: v for k, v in tool.items() if v is not None})
            match = len(tools) - 1
            uses.append({})
        paired.add(match)
        if "response" in response:
            tools[match]["result"] = response["response"]
    return tools


def _invocation(inv: Any, source: str, path: str) -> Any:
    if not isinstance(inv, dict):
        return inv
    out = _camel_keys(inv)
    for key in ("userContent", "finalResponse"):
        if key in out:
            out[key] = _message(out[key], source, f"{path}.{key}")
    inter = out.pop("intermediateData", None)
    if inter is not None and not isinstance(inter, dict):
        raise FormatError(source, f"{path}.intermediateData", "an object")
    if isinstance(inter, dict):
        inter = _camel_keys(inter)
        tools = _tools(inter, source, f"{path}.intermediateData")
        if tools and "tools" not in out:
            out["tools"] = tools
        rest = {k: v for k, v in inter.items() if k not in ("toolUses", "toolResponses")}
        if rest:
            out["intermediateData"] = rest
    return out


def adk_to_evalset(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Return the canonical eval-set dict for an ADK-shaped one (see module docstring)."""
    out = _camel_keys(data)
    cases = out.get("evalCases")
    if not isinstance(cases, list):
        return out  # validation reports the wrong type at $.evalCases
    converted = []
    for ci, case in enumerate(cases):
        if not isinstance(case, dict):
            converted.append(case)
            continue
        case = _camel_keys(case)
        if isinstance(case.get("sessionInput"), dict):
            case["sessionInput"] = _camel_keys(case["sessionInput"])
        elif case.get("sessionInput") is None:
            case["sessionInput"] = default_session_input(out.get("evalSetId"))
        for key in ("conversation", "actualConversation"):
            if isinstance(case.get(key), list):
                case[key] = [
                    _invocation(inv, source, f"$.evalCases[{ci}].{key}[{ii}]")
                    for ii, inv in enumerate(case[key])
                ]
        converted.append(case)
    out["evalCases"] = converted
    return out


# ------------------------------------------------------------------------ older *.test.json


def looks_like_adk_test(data: Any) -> bool:
    """True for google-adk's older test file: a non-empty JSON array of objects with ``query``
    (turns) or with ``data`` (cases)."""
    return (
        isinstance(data, list)
        and bool(data)
        and isinstance(data[0], dict)
        and ("query" in data[0] or "data" in data[0])
    )


def _need(value: Any, kind: type | tuple[type, ...], source: str, path: str, what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise FormatError(source, path, what)
    return value


def _test_turn(turn: Any, case_id: str, index: int, source: str, path: str) -> dict[str, Any]:
    _need(turn, dict, source, path, "a turn object {query, expected_tool_use, reference}")
    query = _need(turn.get("query"), str, source, f"{path}.query", "a string (the user query)")
    inv: dict[str, Any] = {
        "invocationId": f"{case_id}-{index + 1}",
        "userContent": {"role": "user", "content": query},
    }
    reference = turn.get("reference")
    if reference is not None:
        _need(reference, str, source, f"{path}.reference", "a string (the expected response)")
        inv["finalResponse"] = {"role": "assistant", "content": reference}
    tools = []
    uses = turn.get("expected_tool_use")
    for ti, use in enumerate(
        _need(uses or [], list, source, f"{path}.expected_tool_use", "an array")
    ):
        where = f"{path}.expected_tool_use[{ti}]"
        _need(use, dict, source, where, "an object {tool_name, tool_input}")
        name = _need(use.get("tool_name"), str, source, f"{where}.tool_name", "a string")
        tool: dict[str, Any] = {"name": name, "arguments": use.get("tool_input", {})}
        if "mock_tool_output" in use:
            tool["mockToolOutput"] = use["mock_tool_output"]
        tools.append(tool)
    if tools:
        inv["tools"] = tools
    responses = []
    key = "expected_intermediate_agent_responses"
    for ri, item in enumerate(
        _need(turn.get(key) or [], list, source, f"{path}.{key}", "an array")
    ):
        where = f"{path}.{key}[{ri}]"
        _need(item, dict, source, where, "an object {author, text}")
        text = _need(item.get("text"), str, source, f"{where}.text", "a string")
        message = {"role": "assistant", "content": text}
        if isinstance(item.get("author"), str):
            message["author"] = item["author"]
        responses.append(message)
    if responses:
        inv["intermediateResponses"] = responses
    return inv


def adk_test_to_evalset(data: list[Any], source: str, eval_set_id: str) -> dict[str, Any]:
    """The canonical eval-set dict of an older google-adk ``.test.json`` (module docstring)."""
    cases: list[Any]
    if "query" in data[0]:
        cases = [{"name": eval_set_id, "data": data}]
        paths = ["$"]
    else:
        cases = data
        paths = [f"$[{i}].data" for i in range(len(data))]
    out_cases = []
    for ci, case in enumerate(cases):
        where = "$" if paths[0] == "$" else f"$[{ci}]"
        _need(case, dict, source, where, "a case object {name, data}")
        case_id = _need(case.get("name"), str, source, f"{where}.name", "a string (case name)")
        turns = _need(case.get("data"), list, source, paths[ci], "an array of turns")
        session = case.get("initial_session")
        if session:
            _need(session, dict, source, f"{where}.initial_session", "an object")
            session_input = {
                "appName": session.get("app_name", ""),
                "userId": session.get("user_id", ""),
                "state": session.get("state", {}),
            }
        else:
            session_input = default_session_input(eval_set_id)
        out_cases.append(
            {
                "evalId": case_id,
                "conversation": [
                    _test_turn(turn, case_id, ti, source, f"{paths[ci]}[{ti}]")
                    for ti, turn in enumerate(turns)
                ],
                "sessionInput": session_input,
            }
        )
    return {"evalSetId": eval_set_id, "name": eval_set_id, "evalCases": out_cases}


# -------------------------------------------------------------------------- test_config.json


def looks_like_adk_config(data: Any) -> bool:
    """True for a google-adk / trpc-agent-python ``test_config.json``: ``{"criteria": {...}}``."""
    return isinstance(data, dict) and "criteria" in data


def _option(options: dict[str, Any], name: str) -> Any:
    """``options[name]`` given in snake_case or camelCase."""
    if name in options:
        return options[name]
    return options.get(to_camel(name))


def _judge_model(options: dict[str, Any], source: str, path: str) -> dict[str, Any]:
    judge = _option(options, "judge_model_options") or {}
    _need(judge, dict, source, f"{path}.judge_model_options", "an object")
    model: dict[str, Any] = {"providerName": "openai"}
    name = _option(judge, "judge_model")
    if name is not None:
        model["modelName"] = _need(
            name, str, source, f"{path}.judge_model_options.judge_model", "a string"
        )
    samples = _option(judge, "num_samples")
    if samples is not None:
        model["numSamples"] = _need(
            samples, int, source, f"{path}.judge_model_options.num_samples", "an integer"
        )
    return model


_MATCH_TYPES = {
    "EXACT": {"orderSensitive": True},
    "IN_ORDER": {"orderSensitive": True, "subsetMatching": True},
    "ANY_ORDER": {"subsetMatching": True},
}
_MATCH_TYPE_NUMBERS = {0: "EXACT", 1: "IN_ORDER", 2: "ANY_ORDER"}


def _trajectory(
    threshold: float, options: dict[str, Any], source: str, path: str
) -> dict[str, Any]:
    match = _option(options, "match_type")
    if match is None:
        match = "EXACT"
    elif isinstance(match, int) and not isinstance(match, bool):
        match = _MATCH_TYPE_NUMBERS.get(match, "")
    elif isinstance(match, str):
        match = match.upper()
    if not isinstance(match, str) or match not in _MATCH_TYPES:
        raise FormatError(source, f"{path}.match_type", "EXACT, IN_ORDER or ANY_ORDER")
    exact = {"name": {"matchStrategy": "exact"}, "arguments": {"matchStrategy": "exact"}}
    trajectory = {"defaultStrategy": exact, **_MATCH_TYPES[match]}
    return {
        "evaluatorName": "tool_trajectory_avg_score",
        "criterion": {"toolTrajectory": trajectory},
    }


def _rouge1(threshold: float, options: dict[str, Any], source: str, path: str) -> dict[str, Any]:
    rouge = {
        "rougeType": "rouge1",
        "measure": "f1",
        "useStemmer": True,
        "threshold": {"f1": threshold},
    }
    return {
        "evaluatorName": "final_response_avg_score",
        "threshold": 1.0,
        "criterion": {"finalResponse": {"rouge": rouge}},
    }


def _llm_final(threshold: float, options: dict[str, Any], source: str, path: str) -> dict[str, Any]:
    judge: dict[str, Any] = {"judgeModel": _judge_model(options, source, path)}
    return {"evaluatorName": "llm_final_response", "criterion": {"llmJudge": judge}}


def _rubrics(options: dict[str, Any], source: str, path: str) -> list[dict[str, Any]]:
    out = []
    items = _option(options, "rubrics") or []
    for i, item in enumerate(_need(items, list, source, f"{path}.rubrics", "an array")):
        where = f"{path}.rubrics[{i}]"
        _need(item, dict, source, where, "a rubric object")
        content = _option(item, "rubric_content") or {}
        _need(content, dict, source, f"{where}.rubric_content", "an object")
        text = _option(content, "text_property")
        rubric: dict[str, Any] = {"id": _option(item, "rubric_id") or str(i + 1)}
        if text is not None:
            rubric["content"] = {
                "text": _need(
                    text, str, source, f"{where}.rubric_content.text_property", "a string"
                )
            }
        out.append(rubric)
    return out


def _rubric_response(
    threshold: float, options: dict[str, Any], source: str, path: str
) -> dict[str, Any]:
    judge: dict[str, Any] = {"judgeModel": _judge_model(options, source, path)}
    rubrics = _rubrics(options, source, path)
    if rubrics:
        judge["rubrics"] = rubrics
    return {"evaluatorName": "llm_rubric_response", "criterion": {"llmJudge": judge}}


def _hallucinations(
    threshold: float, options: dict[str, Any], source: str, path: str
) -> dict[str, Any]:
    judge = {"judgeModel": _judge_model(options, source, path)}
    return {"evaluatorName": "llm_hallucinations", "criterion": {"llmJudge": judge}}


Converter = Callable[[float, dict[str, Any], str, str], dict[str, Any]]
"""``(threshold, options, source, json path) -> {evaluatorName, criterion[, threshold]}``."""

CRITERIA: dict[str, Converter] = {
    "tool_trajectory_avg_score": _trajectory,
    "response_match_score": _rouge1,
    "final_response_match_v2": _llm_final,
    "rubric_based_final_response_quality_v1": _rubric_response,
    "hallucinations_v1": _hallucinations,
}
"""ADK criterion name → converter to our metric (evaluator and criterion; the metric keeps the
ADK name and the threshold). The mapping (docs/formats.md):

* ``tool_trajectory_avg_score`` → ``tool_trajectory_avg_score``, name and arguments compared
  exactly; ``match_type`` EXACT (default) = in order, same count; IN_ORDER = in order, extra
  actual calls allowed; ANY_ORDER = any order, extra calls allowed;
* ``response_match_score`` → ``final_response_avg_score`` with ROUGE-1 F1 (stemmed), a turn
  matching when its F1 reaches the threshold; the metric threshold is 1 (every turn must match),
  which equals ADK's mean-F1 rule for single-turn cases;
* ``final_response_match_v2`` → ``llm_final_response``; ``rubric_based_final_response_quality_v1``
  → ``llm_rubric_response`` (rubrics kept); ``hallucinations_v1`` → ``llm_hallucinations``;
  ``judge_model_options.judge_model`` / ``num_samples`` become ``judgeModel.modelName`` /
  ``numSamples`` (the endpoint comes from the environment / the ``judge`` argument);
* any other criterion has no equivalent evaluator: a :class:`FormatError` naming it.
"""


def criteria_to_metrics(data: dict[str, Any], source: str) -> list[dict[str, Any]]:
    """Metrics (wire dicts) for a ``test_config.json``, one per criterion, in file order."""
    criteria = _need(
        data.get("criteria"), dict, source, "$.criteria", "an object {name: threshold}"
    )
    metrics = []
    for name, value in criteria.items():
        path = f"$.criteria.{name}"
        convert = CRITERIA.get(name if isinstance(name, str) else "")
        if convert is None:
            raise FormatError(
                source,
                path,
                f"a criterion agenteval_nb can convert ({', '.join(CRITERIA)}); "
                f"{name!r} has no equivalent evaluator",
            )
        if isinstance(value, dict):
            options = {to_snake(k) if isinstance(k, str) else k: v for k, v in value.items()}
            threshold = options.get("threshold")
        else:
            options, threshold = {}, value
        threshold = _need(
            threshold,
            (int, float),
            source,
            path if not options else f"{path}.threshold",
            "a number (the threshold)",
        )
        metric: dict[str, Any] = {"metricName": name, "threshold": float(threshold)}
        metric.update(convert(float(threshold), options, source, path))
        metrics.append(metric)
    return metrics


# ---------------------------------------------- trpc-agent-python's {"metrics": [...]} config


def looks_like_metrics_config(data: Any) -> bool:
    """True for trpc-agent-python's newer ``test_config.json``: an object with a ``metrics``
    array (and optionally ``num_runs``)."""
    return isinstance(data, dict) and isinstance(data.get("metrics"), list)


METRIC_KEY_RENAMES = {
    "default": "defaultStrategy",
    "overrides": "toolStrategy",
    "match": "matchStrategy",
    "base_url": "baseURL",
    "text_strategy": "text",
    "json_strategy": "json",
}
"""trpc-agent-python spellings with another Go name (SPEC §1.4); every other snake_case key
is made camelCase (``metric_name`` → ``metricName``, ``tool_trajectory`` → ``toolTrajectory``)."""

VERBATIM_KEYS = frozenset(
    {"generationConfig", "extraFields", "extension", "ignoreTree", "onlyTree", "schema"}
)
"""Keys (Go spelling) whose value is data, copied as it is: user JSON trees, extension, and
``generationConfig``, whose keys are snake_case in the Go format too."""


def _metric_keys(value: Any) -> Any:
    """A metric (sub)tree with Go key names (:data:`METRIC_KEY_RENAMES`, :data:`VERBATIM_KEYS`);
    the keys of ``toolStrategy`` are tool names and stay as they are."""
    if isinstance(value, list):
        return [_metric_keys(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[Any, Any] = {}
    for key, item in value.items():
        name = key
        if isinstance(key, str):
            name = METRIC_KEY_RENAMES.get(key) or (to_camel(key) if "_" in key else key)
        if name in VERBATIM_KEYS:
            out[name] = item
        elif name == "toolStrategy" and isinstance(item, dict):
            out[name] = {tool: _metric_keys(strategy) for tool, strategy in item.items()}
        else:
            out[name] = _metric_keys(item)
    return out


def metrics_config_to_metrics(data: dict[str, Any], source: str) -> tuple[list[Any], int | None]:
    """Metrics (wire dicts, in file order) and ``num_runs`` (None when absent) of a
    ``{"metrics": [...], "num_runs": N}`` config; each metric's keys as :func:`_metric_keys`
    says. A metric that is not an object is left for validation to name."""
    runs = data.get("num_runs", data.get("numRuns"))
    if runs is not None:
        _need(runs, int, source, "$.num_runs", "a positive integer (the number of runs)")
        if runs < 1:
            raise FormatError(source, "$.num_runs", f"a positive integer (got {runs})")
    return [_metric_keys(m) for m in data["metrics"]], runs
