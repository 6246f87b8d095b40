"""An offline heuristic judge — **not an LLM** — for tests, demos and CI without a model.

Use it as the judge of an evaluation (``judge=heuristic_judge``: a callable taking ``(messages,
structured_output=None, **request)`` and returning a chat-completion dict) or behind the fake
server (``FakeOpenAIServer(handler=heuristic_handler)``, a ``request_json -> dict`` function).
Every completion it returns has ``model`` = ``"agenteval-heuristic-judge"`` and text that says it
is a heuristic; the evaluators then mark the judgement ``heuristic=True``.

**What is asked** is read from the request, first match wins:

1. the structured-output schema name: ``rubric_*_scores`` / ``rubric_scores_result`` → rubric
   JSON, ``single_score_result`` → ``{score, reason}``, ``boolean_result`` → ``{passed,
   reason}``, ``categorical_result`` → ``{category, reason}``;
2. cues in the prompt: ``<score_A>`` → verifier letters (pairwise when ``<score_B>`` is there
   too); ``<segmented_sentences>`` (or ``Label:`` with ``Verdict:``) → hallucination
   ``ID/Reason/Label/Verdict`` blocks, one per ``<sentence id="N">``; ``<sentence>`` →
   segmentation; ``is_the_agent_response_valid`` → the two ``reasoning:`` /
   ``is_the_agent_response_valid:`` lines; ``rubricScores`` → rubric JSON; ``"passed"`` →
   boolean JSON; ``"category"`` → categorical JSON; anything else → single score.

**The rule** is word overlap. Words are lower-cased runs of letters and digits minus a short
list of English stop words; ``overlap(answer, reference)`` = the share of the reference's
distinct words found in the answer (1 when the reference has none). A check *passes* when the
overlap is at least 0.5. The texts come from the tagged sections of our prompts
(``<agent_response>``, ``<reference_answer>``, ``<rubrics>``, ``<retrieved_knowledge>``,
``<context>``, ``<criteria>``, ``<user_request>``, ``<candidate_a>``, ``<candidate_b>``); a
prompt without them (a user template) is split into paragraphs: the last is the answer, the rest
the reference.

* final response: valid iff overlap(answer, reference answer) ≥ 0.5;
* rubric items (ids from the schema enum, else from ``id: text`` lines or a JSON rubric list):
  score 1 iff overlap(answer — the retrieved knowledge for knowledge recall —, item text) ≥ 0.5;
* single score: the overlap itself; boolean: passes; categorical: the first label of the enum
  when it passes, else the last;
* segmentation: sentences split at ``.``/``!``/``?`` and line breaks
  (``[EMPTY_RESPONSE]`` for an empty answer); validation: ``supported`` iff
  overlap(context, sentence) ≥ 0.5, else ``unsupported``;
* verifier: r = overlap(candidate, criteria + user request) (+ ``position_bias`` for the
  candidate in slot A, an optional deliberate bias for demonstrating swap control), letter index
  ``k = round((1 − r)·19)``; token logprobs put 0.6 on ``k``, 0.15 on ``k±1``, 0.05 on ``k±2``
  (renormalised at the ends of the scale). Logprobs are returned when the request asks for them
  (``logprobs: true``); the callable form returns them unless told ``logprobs=False``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..evaluators.llm.judge_contract import HEURISTIC_MODEL
from .fake_server import completion

__all__ = [
    "HEURISTIC_MODEL",
    "HeuristicJudge",
    "heuristic_handler",
    "heuristic_judge",
    "overlap",
    "words",
]

LABELS = "ABCDEFGHIJKLMNOPQRST"
PASS_OVERLAP = 0.5
_SPREAD = {0: 0.6, 1: 0.15, 2: 0.05}
_STOP_WORDS = """
a an the and or but if of to in on at by for with from as is are was were be been being it its
this that these those there here i you he she we they me him her us them my your our their what
which who whom whose when where why how do does did done not no yes so than then too very can
could should would will shall may might must have has had having about into over under up down
out off again any all each few more most other some such only own same just
"""
_STOP = frozenset(_STOP_WORDS.split())
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
_SENTENCE_BLOCK = re.compile(r'<sentence id="([^"]*)">\n?(.*?)\n?</sentence>', re.S)


def words(text: str | None) -> set[str]:
    """Distinct lower-cased words of ``text`` minus stop words."""
    return {w for w in _WORD.findall((text or "").lower()) if w not in _STOP}


def overlap(answer: str | None, reference: str | None) -> float:
    """Share of the reference's words present in the answer (1.0 for an empty reference)."""
    ref = words(reference)
    if not ref:
        return 1.0
    return len(ref & words(answer)) / len(ref)


def _section(prompt: str, tag: str) -> str | None:
    start = prompt.find(f"<{tag}>")
    if start < 0:
        return None
    start += len(tag) + 2
    end = prompt.find(f"</{tag}>", start)
    return (prompt[start:] if end < 0 else prompt[start:end]).strip("\n")


def _paragraphs(prompt: str) -> tuple[str, str]:
    parts = [p for p in re.split(r"\n\s*\n", prompt) if p.strip()]
    if len(parts) < 2:
        return prompt, ""
    return parts[-1], "\n\n".join(parts[:-1])


def _answer_and_reference(prompt: str) -> tuple[str, str]:
    answer = _section(prompt, "agent_response")
    reference = _section(prompt, "reference_answer")
    if answer is None and reference is None:
        return _paragraphs(prompt)
    return answer or "", reference or ""


def _percent(x: float) -> str:
    return f"{round(100 * x)}%"


def _rubric_items(prompt: str, ids: Sequence[str] | None) -> list[tuple[str, str]]:
    """``(id, text)`` pairs from the ``<rubrics>`` lines, a JSON rubric list, or the ids."""
    items: list[tuple[str, str]] = []
    block = _section(prompt, "rubrics")
    if block is not None:
        for line in block.splitlines():
            if ":" in line:
                rid, _, text = line.partition(":")
                items.append((rid.strip(), text.strip()))
    if not items:
        items = _json_rubrics(prompt)
    if ids:
        known = dict(items)
        return [(rid, known.get(rid, rid)) for rid in ids]
    return items or [("1", prompt)]


def _json_rubrics(prompt: str) -> list[tuple[str, str]]:
    start = prompt.find('[{"id"')
    if start < 0:
        return []
    try:
        value, _ = json.JSONDecoder().raw_decode(prompt, start)
    except ValueError:
        return []
    out = []
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict) and isinstance(item.get("id"), str):
            content = item.get("content")
            if not isinstance(content, dict):
                content = {}
            out.append((item["id"], str(content.get("text") or "")))
    return out


def _schema(structured_output: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    if not isinstance(structured_output, Mapping):
        return "", {}
    inner = structured_output.get("json_schema", structured_output)
    if not isinstance(inner, Mapping):
        return "", {}
    schema = inner.get("schema")
    return str(inner.get("name") or ""), dict(schema) if isinstance(schema, Mapping) else {}


def _enum(schema: Mapping[str, Any], *path: str) -> list[str] | None:
    node: Any = schema
    for key in path:
        node = node.get(key) if isinstance(node, Mapping) else None
    values = node.get("enum") if isinstance(node, Mapping) else None
    return [str(v) for v in values] if isinstance(values, list) else None


class HeuristicJudge:
    """The heuristic judge (rules in the module doc).

    ``logprobs``: ``"auto"`` (handler: when the request asks; callable: yes), ``True`` or
    ``False``. ``position_bias``: added to the overlap of the verifier's slot-A candidate (0 by
    default: no bias).
    """

    def __init__(self, *, logprobs: bool | str = "auto", position_bias: float = 0.0) -> None:
        if logprobs not in (True, False, "auto"):
            raise ValueError('logprobs must be True, False or "auto"')
        self.logprobs = logprobs
        self.position_bias = position_bias

    def __repr__(self) -> str:
        return f"HeuristicJudge(logprobs={self.logprobs!r}, position_bias={self.position_bias})"

    # entry points --------------------------------------------------------------------------

    def __call__(
        self,
        messages: Sequence[Mapping[str, Any]],
        structured_output: Mapping[str, Any] | None = None,
        **request: Any,
    ) -> dict[str, Any]:
        """Judge ``messages`` (the callable form, usable as ``judge=``)."""
        wanted = request.get("logprobs", True) if self.logprobs == "auto" else self.logprobs
        return self.answer(messages, structured_output, want_logprobs=bool(wanted))

    def handler(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Answer a chat-completions request body (the fake-server handler form)."""
        wanted = request.get("logprobs") if self.logprobs == "auto" else self.logprobs
        return self.answer(
            request.get("messages") or [],
            request.get("response_format"),
            want_logprobs=bool(wanted),
        )

    # dispatch ------------------------------------------------------------------------------

    def answer(
        self,
        messages: Sequence[Mapping[str, Any]],
        structured_output: Mapping[str, Any] | None,
        *,
        want_logprobs: bool,
    ) -> dict[str, Any]:
        prompt = "\n\n".join(str(m.get("content") or "") for m in messages)
        name, schema = _schema(structured_output)
        if name.startswith("rubric_") and name.endswith(("_scores", "_scores_result")):
            return self._done(
                self._rubrics(
                    prompt, _enum(schema, "properties", "rubricScores", "items", "properties", "id")
                ),
                prompt,
            )
        if name == "single_score_result":
            return self._done(self._single_score(prompt), prompt)
        if name == "boolean_result":
            return self._done(self._boolean(prompt), prompt)
        if name == "categorical_result":
            return self._done(
                self._categorical(prompt, _enum(schema, "properties", "category")), prompt
            )
        if "<score_A>" in prompt:
            return self._verifier(prompt, want_logprobs)
        if "<segmented_sentences>" in prompt or ("Label:" in prompt and "Verdict:" in prompt):
            return self._done(self._validation(prompt), prompt)
        if "<sentence>" in prompt:
            return self._done(self._segmentation(prompt), prompt)
        if "is_the_agent_response_valid" in prompt:
            return self._done(self._final_response(prompt), prompt)
        if "rubricScores" in prompt:
            return self._done(self._rubrics(prompt, None), prompt)
        if '"passed"' in prompt:
            return self._done(self._boolean(prompt), prompt)
        if '"category"' in prompt:
            return self._done(self._categorical(prompt, None), prompt)
        return self._done(self._single_score(prompt), prompt)

    def _done(self, content: str, prompt: str, logprobs: Any = None) -> dict[str, Any]:
        usage = {
            "prompt_tokens": len(prompt.split()),
            "completion_tokens": len(content.split()),
            "total_tokens": len(prompt.split()) + len(content.split()),
        }
        return completion(content, model=HEURISTIC_MODEL, logprobs=logprobs, usage=usage)

    # formats -------------------------------------------------------------------------------

    def _final_response(self, prompt: str) -> str:
        answer, reference = _answer_and_reference(prompt)
        r = overlap(answer, reference)
        label = "valid" if r >= PASS_OVERLAP else "invalid"
        return (
            f"reasoning: heuristic judge (not an LLM): {_percent(r)} of the reference answer's "
            f"words appear in the agent's answer (valid from 50%).\n"
            f"is_the_agent_response_valid: {label}"
        )

    def _rubrics(self, prompt: str, ids: Sequence[str] | None) -> str:
        """An item passes when the answer holds half of the item's words, or — since rubric
        items are mostly phrased in general terms — half of the reference answer's words when
        there is a reference, else a third of the user prompt's words."""
        knowledge = _section(prompt, "retrieved_knowledge")
        answer, reference = _answer_and_reference(prompt)
        if knowledge is not None:
            answer = knowledge
        question = _section(prompt, "user_prompt") or ""
        if reference:
            fallback, basis, needed = overlap(answer, reference), "reference answer", PASS_OVERLAP
        elif words(question):
            fallback, basis, needed = overlap(answer, question), "user prompt", PASS_OVERLAP / 1.5
        else:
            fallback, basis, needed = 0.0, "user prompt", 1.0
        items = []
        for rid, text in _rubric_items(prompt, ids):
            r = overlap(answer, text)
            passed = r >= PASS_OVERLAP or fallback >= needed
            items.append(
                {
                    "id": rid,
                    "score": 1 if passed else 0,
                    "reason": (
                        f"heuristic (not an LLM): {_percent(r)} of the item's words and "
                        f"{_percent(fallback)} of the {basis}'s words found"
                    ),
                }
            )
        return json.dumps({"rubricScores": items})

    def _single_score(self, prompt: str) -> str:
        answer, reference = _answer_and_reference(prompt)
        r = round(overlap(answer, reference), 4)
        return json.dumps(
            {"score": r, "reason": f"heuristic (not an LLM): word overlap {_percent(r)}"}
        )

    def _boolean(self, prompt: str) -> str:
        answer, reference = _answer_and_reference(prompt)
        r = overlap(answer, reference)
        return json.dumps(
            {
                "passed": r >= PASS_OVERLAP,
                "reason": f"heuristic (not an LLM): word overlap {_percent(r)}",
            }
        )

    def _categorical(self, prompt: str, labels: Sequence[str] | None) -> str:
        answer, reference = _answer_and_reference(prompt)
        r = overlap(answer, reference)
        labels = list(labels or ["pass", "fail"])
        label = labels[0] if r >= PASS_OVERLAP else labels[-1]
        return json.dumps(
            {"category": label, "reason": f"heuristic (not an LLM): word overlap {_percent(r)}"}
        )

    def _segmentation(self, prompt: str) -> str:
        answer = _section(prompt, "agent_response")
        if answer is None:
            answer = _paragraphs(prompt)[0]
        parts = [p.strip() for p in _SENTENCE_SPLIT.split(answer) if p.strip()]
        lines = [f"<sentence>{p}</sentence>" for p in parts] or [
            "<sentence>[EMPTY_RESPONSE]</sentence>"
        ]
        return "heuristic segmentation (not an LLM):\n" + "\n".join(lines)

    def _validation(self, prompt: str) -> str:
        context = _section(prompt, "context") or ""
        blocks = []
        for sid, sentence in _SENTENCE_BLOCK.findall(_section(prompt, "segmented_sentences") or ""):
            if sentence.strip() == "[EMPTY_RESPONSE]":
                label, verdict, why = "unsupported", "no", "the answer is empty"
            else:
                r = overlap(context, sentence)
                supported = r >= PASS_OVERLAP
                label, verdict = ("supported", "yes") if supported else ("unsupported", "no")
                why = f"{_percent(r)} of the sentence's words occur in the context"
            blocks.append(
                f"ID: {sid}\nReason: heuristic (not an LLM): {why}\nLabel: {label}\n"
                f"Verdict: {verdict}"
            )
        return "\n\n".join(blocks)

    def _verifier(self, prompt: str, want_logprobs: bool) -> dict[str, Any]:
        """Grade = share of the request's words in the candidate, averaged (pairwise) with the
        word-set Jaccard similarity of the two candidates, so that agreeing answers grade high
        and the comparison is driven by how well each answer addresses the request."""
        request = _section(prompt, "user_request") or ""
        criteria = _section(prompt, "criteria") or ""
        pairwise = "<score_B>" in prompt
        candidates = [_section(prompt, "candidate_a") or ""]
        if pairwise:
            candidates.append(_section(prompt, "candidate_b") or "")
            a, b = words(candidates[0]), words(candidates[1])
            agreement = len(a & b) / len(a | b) if a | b else 1.0
            ratios = [0.5 * overlap(c, request) + 0.5 * agreement for c in candidates]
        else:
            ratios = [overlap(candidates[0], f"{request} {criteria}")]
        ratios[0] = min(1.0, max(0.0, ratios[0] + self.position_bias))
        letters = [LABELS[round((1.0 - r) * (len(LABELS) - 1))] for r in ratios]
        analysis = "Heuristic judge (not an LLM): " + "; ".join(
            f"candidate {slot} grades {_percent(r)} by word overlap"
            for slot, r in zip("AB", ratios, strict=False)
        )
        tokens: list[Any] = [(analysis, -0.01), ("\n<score_A>", -0.01), _letter_token(letters[0])]
        if pairwise:
            tokens += [("</score_A>\n<score_B>", -0.01), _letter_token(letters[1])]
            tokens.append(("</score_B>", -0.01))
        else:
            tokens.append(("</score_A>", -0.01))
        content = "".join(t[0] for t in tokens)
        return completion(
            content,
            model=HEURISTIC_MODEL,
            logprobs=tokens if want_logprobs else None,
            usage={
                "prompt_tokens": len(prompt.split()),
                "completion_tokens": len(tokens),
                "total_tokens": len(prompt.split()) + len(tokens),
            },
        )


def _letter_token(letter: str) -> tuple[str, float, list[tuple[str, float]]]:
    """The sampled letter with top logprobs spread over its neighbours on the scale."""
    k = LABELS.index(letter)
    weights: dict[str, float] = {}
    for d in range(-2, 3):
        if 0 <= k + d < len(LABELS):
            weights[LABELS[k + d]] = _SPREAD[abs(d)]
    total = sum(weights.values())
    top = sorted(((lab, math.log(w / total)) for lab, w in weights.items()), key=lambda t: -t[1])
    return letter, math.log(weights[letter] / total), top


heuristic_judge = HeuristicJudge()
"""The default heuristic judge, usable as ``judge=heuristic_judge``."""


def heuristic_handler(request: Mapping[str, Any]) -> dict[str, Any]:
    """Fake-server handler: ``FakeOpenAIServer(handler=heuristic_handler)``."""
    return heuristic_judge.handler(request)
