"""The frame the benchmarks' Elo pictures share: an SVG page, its title, axes, Elo ticks and the dashed line at 0.

bench.elo_curve (Elo against the budget) and bench.levels (each level's Elo
against greedy) draw their points inside it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 50


@dataclass
class EloFrame:
    """An Elo plot's page: `lines` (SVG elements, the frame first) and the maps from data to page coordinates."""

    x0: float
    x1: float
    y0: float
    y1: float
    lines: list

    def px(self, x: float) -> float:
        """Return the page x of a data x."""
        return LEFT + (x - self.x0) / (self.x1 - self.x0) * (WIDTH - LEFT - RIGHT)

    def py(self, y: float) -> float:
        """Return the page y of an Elo."""
        return TOP + (self.y1 - y) / (self.y1 - self.y0) * (HEIGHT - TOP - BOTTOM)

    def x_tick(self, x: float, label: str) -> None:
        """Add a tick and its label under the x axis."""
        self.lines.append(f'<line x1="{self.px(x):.1f}" y1="{HEIGHT - BOTTOM}" x2="{self.px(x):.1f}" '
                          f'y2="{HEIGHT - BOTTOM + 4}" stroke="black"/><text x="{self.px(x):.1f}" '
                          f'y="{HEIGHT - BOTTOM + 18}" text-anchor="middle">{label}</text>')

    def finish(self) -> str:
        """Return the whole SVG."""
        return "\n".join(self.lines + ["</svg>"]) + "\n"


def elo_frame(xs: list, elos: list, title: str, x_label: str, y_label: str, zero_label: str = "") -> EloFrame:
    """Return a frame spanning xs (half a step of margin) and elos (with 0, 50 Elo of margin), its axes and Elo ticks drawn."""
    x0, x1 = min(xs) - 0.5, max(xs) + 0.5
    y0, y1 = min(list(elos) + [0]) - 50, max(list(elos) + [0]) + 50
    f = EloFrame(x0, x1, y0, y1, [])
    W, H, L, R, T, B = WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM
    f.lines += [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
                'font-family="sans-serif" font-size="12">',
                f'<rect width="{W}" height="{H}" fill="white"/>',
                f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">{title}</text>',
                f'<line x1="{L}" y1="{f.py(0):.1f}" x2="{W - R}" y2="{f.py(0):.1f}" stroke="#999" '
                'stroke-dasharray="4 3"/>']
    if zero_label:
        f.lines.append(f'<text x="{W - R - 4}" y="{f.py(0) - 4:.1f}" text-anchor="end" fill="#777">{zero_label}</text>')
    f.lines += [f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>',
                f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>',
                f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">{x_label}</text>',
                f'<text x="16" y="{(T + H - B) / 2}" text-anchor="middle" '
                f'transform="rotate(-90 16 {(T + H - B) / 2})">{y_label}</text>']
    step = 100 if y1 - y0 < 1200 else 200
    for y in range(int(math.ceil(y0 / step) * step), int(y1) + 1, step):
        f.lines.append(f'<line x1="{L - 4}" y1="{f.py(y):.1f}" x2="{L}" y2="{f.py(y):.1f}" stroke="black"/>'
                       f'<text x="{L - 8}" y="{f.py(y) + 4:.1f}" text-anchor="end">{y:+d}</text>')
    return f
