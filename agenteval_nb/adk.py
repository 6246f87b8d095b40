"""Conversion of google-adk / trpc-agent-python eval sets to the Go (canonical) shape.

What is converted:

* keys in snake_case (``eval_set_id``, ``eval_cases``, ``user_content`` …) become camelCase;
* messages ``{role, parts: [{text}, …]}`` become ``{role, content}`` with the text parts joined
  by ``""`` (non-text parts are dropped); role ``model`` becomes ``assistant``;
* ``intermediateData.toolUses`` (``{id, name, args}``) and ``toolResponses``
  (``{id, name, response}``) become ``tools`` (``{id, name, arguments, result}``); a response is
  paired with the use of the same id, else with the first unpaired use of the same name;
* ``intermediateData.intermediateResponses`` and ADK-only keys (``finalSessionState`` …) are
  kept as unknown keys, so nothing is lost.
"""

from __future__ import annotations

from typing import Any

from pydantic.alias_generators import to_camel

from .errors import FormatError


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
        for inv in (case or {}).get("conversation") or []:
            if not isinstance(inv, dict):
                continue
            if "intermediateData" in inv or "intermediate_data" in inv:
                return True
            user = inv.get("userContent") or inv.get("user_content")
            if isinstance(user, dict) and "parts" in user:
                return True
    return False


def _camel_keys(obj: dict[str, Any]) -> dict[str, Any]:
    return {to_camel(k) if "_" in k else k: v for k, v in obj.items()}


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


def _tools(data: dict[str, Any]) -> list[dict[str, Any]]:
    uses = [_camel_keys(u) for u in data.get("toolUses") or [] if isinstance(u, dict)]
    responses = [_camel_keys(r) for r in data.get("toolResponses") or [] if isinstance(r, dict)]
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
    if isinstance(inter, dict):
        inter = _camel_keys(inter)
        tools = _tools(inter)
        if tools and "tools" not in out:
            out["tools"] = tools
        rest = {k: v for k, v in inter.items() if k not in ("toolUses", "toolResponses")}
        if rest:
            out["intermediateData"] = rest
    return out


def adk_to_evalset(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Return the canonical eval-set dict for an ADK-shaped one."""
    out = _camel_keys(data)
    cases = []
    for ci, case in enumerate(out.get("evalCases") or []):
        if not isinstance(case, dict):
            cases.append(case)
            continue
        case = _camel_keys(case)
        if isinstance(case.get("sessionInput"), dict):
            case["sessionInput"] = _camel_keys(case["sessionInput"])
        for key in ("conversation", "actualConversation"):
            if isinstance(case.get(key), list):
                case[key] = [
                    _invocation(inv, source, f"$.evalCases[{ci}].{key}[{ii}]")
                    for ii, inv in enumerate(case[key])
                ]
        cases.append(case)
    if "evalCases" in out:
        out["evalCases"] = cases
    return out
