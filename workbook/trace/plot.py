"""The token plot: a matplotlib Figure that shows itself in a notebook without pyplot.

matplotlib is imported on the first plot, not with the workbook: most notebooks never plot.
"""

from __future__ import annotations

import functools
import io
import logging


@functools.cache
def _classes():
    """TokenFigure (a Figure with its own PNG repr) and the Agg canvas, made on the first plot."""
    log = logging.getLogger("matplotlib")  # its first import may log about the font cache,
    level = log.level                      # and nothing may reach stderr in a cell
    log.setLevel(logging.ERROR)
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    finally:
        log.setLevel(level)

    class TokenFigure(Figure):
        """A Figure with its own PNG repr: no pyplot, no global state, shown once."""

        def _repr_png_(self) -> bytes:
            buf = io.BytesIO()
            self.savefig(buf, format="png", dpi=100)
            return buf.getvalue()

    return TokenFigure, FigureCanvasAgg


def plot(growth, title: str):
    """Bars of prompt tokens per step and a line of the running total (growth: token_growth())."""
    TokenFigure, FigureCanvasAgg = _classes()
    fig = TokenFigure(figsize=(6, 3.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if not growth:
        ax.text(0.5, 0.5, "no steps to plot", ha="center", va="center", transform=ax.transAxes)
    else:
        steps = [g.step for g in growth]
        bars = ax.bar(steps, [g.tokens_in for g in growth], color="#4c72b0", label="prompt tokens")
        ax.bar_label(bars, label_type="center", color="white", fontsize=8)
        ax.plot(steps, [g.total for g in growth], "o--", color="#dd8452",
                label="running total (in + out)")
        ax.set_xticks(steps)
        ax.legend(loc="upper left", fontsize=8)
    ax.set_xlabel("step")
    ax.set_ylabel("tokens")
    ax.set_title(title)
    return fig
