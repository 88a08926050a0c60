"""The token plot: a matplotlib Figure that shows itself in a notebook without pyplot."""

from __future__ import annotations

import io
import logging

# A first import may log that it builds the font cache; nothing may reach stderr in a cell.
_log = logging.getLogger("matplotlib")
_level = _log.level
_log.setLevel(logging.ERROR)
try:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
finally:
    _log.setLevel(_level)


class TokenFigure(Figure):
    """A Figure with its own PNG repr: no pyplot, no global state, shown once."""

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=100)
        return buf.getvalue()


def plot(growth, title: str) -> TokenFigure:
    """Bars of prompt tokens per step and a line of the running total (growth: token_growth())."""
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
