"""The verifier's label scale, as data (SPEC §5.2).

A scale is an ordered tuple of single-letter labels, best first, and the value each label is
worth. The reference scale has G = 20 labels ``A``..``T`` valued linearly ``1 − k/(G−1)``
(A = 1, B = 18/19, …, T = 0).
"""

from __future__ import annotations

import math
import string
from dataclasses import dataclass, field

__all__ = ["DEFAULT_SCALE", "LabelScale"]


@dataclass(frozen=True)
class LabelScale:
    """Ordered labels (best first) and their values.

    Each label is one uppercase ASCII letter; labels are unique; ``values[k]`` is the worth of
    ``labels[k]``. :meth:`index` maps a label to its position ``k``.
    """

    labels: tuple[str, ...]
    values: tuple[float, ...]
    _positions: dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        labels = tuple(self.labels)
        values = tuple(float(v) for v in self.values)
        if not labels:
            raise ValueError("a label scale needs at least one label")
        if len(labels) != len(values):
            raise ValueError(f"{len(labels)} labels but {len(values)} values")
        for label in labels:
            if len(label) != 1 or label not in string.ascii_uppercase:
                raise ValueError(f"labels must be single uppercase ASCII letters, got {label!r}")
        if len(set(labels)) != len(labels):
            raise ValueError("labels must be unique")
        if not all(math.isfinite(v) for v in values):
            raise ValueError("label values must be finite")
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "_positions", {label: k for k, label in enumerate(labels)})

    @classmethod
    def linear(cls, size: int = 20) -> LabelScale:
        """Labels ``A``.. (``size`` of them, 2..26) valued ``1 − k/(size−1)``."""
        if not 2 <= size <= 26:
            raise ValueError(f"size must be between 2 and 26, got {size}")
        labels = tuple(string.ascii_uppercase[:size])
        return cls(labels, tuple(1.0 - k / (size - 1) for k in range(size)))

    @property
    def size(self) -> int:
        """G, the number of labels."""
        return len(self.labels)

    def index(self, label: str) -> int | None:
        """Position of ``label`` in the scale, or None if it is not a label of this scale."""
        return self._positions.get(label)

    def value(self, label: str) -> float:
        """Value of ``label``; ``KeyError`` if it is not a label of this scale."""
        return self.values[self._positions[label]]


DEFAULT_SCALE = LabelScale.linear(20)
