"""Built-in response scorers (SPEC §4.4, §5.2), each a ``(response, metric) -> ScoreResult``."""

from .boolean import score_boolean
from .categorical import category_scores, score_categorical
from .finalresponse import score_final_response
from .hallucination import score_hallucination
from .rubricscores import score_rubric_scores, structured_rubric_ids
from .singlescore import score_single_score
from .verifier import VerifierJudgement, VerifierScorer, score_verifier_pairwise

__all__ = [
    "VerifierJudgement",
    "VerifierScorer",
    "category_scores",
    "score_boolean",
    "score_categorical",
    "score_final_response",
    "score_hallucination",
    "score_rubric_scores",
    "score_single_score",
    "score_verifier_pairwise",
    "structured_rubric_ids",
]
