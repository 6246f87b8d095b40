"""Deterministic criteria (SPEC §3): text, length, JSON, XML, ROUGE, tool trajectory, final
response.

Each ``match_*`` returns ``None`` on a match and raises :class:`MatchError` carrying the
reference's error text otherwise (an empty text is a mismatch without a cause). ``validate_*``
return the text of a configuration error that would fail every comparison, or ``None``, so
metrics can be checked when they load. ROUGE, NLTK and jsonschema are imported on first use.
"""

from .errors import MatchError
from .final_response import match_final_response, validate_final_response
from .hooks import NO_HOOKS, CompareFn, Hooks, TokenizerFn, compare_outcome
from .jsoncmp import DEFAULT_NUMBER_TOLERANCE, match_json, validate_json
from .kuhn import unmatched_left
from .length import match_length, validate_length
from .rawjson import JSONTextError, RawJSON, decode_json_text
from .rouge import RougeScore, score_rouge, validate_rouge
from .rouge_tokens import cjk_tokenizer, rouge_tokenize, split_sentences
from .text import match_text, validate_text
from .trajectory import DEFAULT_STRATEGY, match_tool_trajectory, validate_tool_trajectory
from .validation import validate_criterion
from .xml import match_xml, validate_xml

__all__ = [
    "DEFAULT_NUMBER_TOLERANCE",
    "DEFAULT_STRATEGY",
    "NO_HOOKS",
    "CompareFn",
    "Hooks",
    "JSONTextError",
    "MatchError",
    "RawJSON",
    "RougeScore",
    "TokenizerFn",
    "cjk_tokenizer",
    "compare_outcome",
    "decode_json_text",
    "match_final_response",
    "match_json",
    "match_length",
    "match_text",
    "match_tool_trajectory",
    "match_xml",
    "rouge_tokenize",
    "score_rouge",
    "split_sentences",
    "unmatched_left",
    "validate_criterion",
    "validate_final_response",
    "validate_json",
    "validate_length",
    "validate_rouge",
    "validate_text",
    "validate_tool_trajectory",
    "validate_xml",
]
