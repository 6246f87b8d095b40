"""Built-in messages constructors (SPEC §4.3): one judge prompt per turn, in our own words,
asking for the exact output format each scorer reads."""

from .finalresponse import FinalResponseConstructor
from .hallucination import HallucinationConstructor
from .rubric import (
    KnowledgeRecallConstructor,
    RubricCriticConstructor,
    RubricReferenceCriticConstructor,
    RubricResponseConstructor,
)
from .verifier import VerifierConstructor

__all__ = [
    "FinalResponseConstructor",
    "HallucinationConstructor",
    "KnowledgeRecallConstructor",
    "RubricCriticConstructor",
    "RubricReferenceCriticConstructor",
    "RubricResponseConstructor",
    "VerifierConstructor",
]
