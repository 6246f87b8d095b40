"""The figure type of :mod:`agenteval_nb.plots`: a matplotlib ``Figure`` that shows itself as
an image wherever IPython displays objects.

A plain ``Figure`` shows as the text ``<Figure size 640x400 with 1 Axes>`` unless the kernel
has an inline backend active; :class:`PlotFigure` carries its own ``_repr_png_``, so Jupyter,
voilà, nbconvert HTML and saved notebooks (nbval) get a PNG with no pyplot and no global
display setting. It is still a ``Figure``: ``savefig``, ``axes`` and friends work as usual.
This module imports matplotlib; :mod:`agenteval_nb.plots` imports it when a figure is built.
"""

from __future__ import annotations

import io

from matplotlib.figure import Figure

PNG_DPI = 100
"""Resolution of the displayed PNG (a 6.4 × 4 inch figure is 640 × 400 pixels)."""


class PlotFigure(Figure):
    """A ``Figure`` that IPython displays as a PNG image."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=PNG_DPI, facecolor="white")
        return buffer.getvalue()
