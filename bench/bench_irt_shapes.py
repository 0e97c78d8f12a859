"""Time the 2PL IRT fit alone on the platform shapes of 10M attempts.

Issue 35 asks for the IRT model within 3 s at 10M attempts on any platform shape, many
agents included. The model's cost is the fit (``irt.fit_2pl``) on one (agent, challenge)
cell per pair; what sets it is the shape: agents x challenges and the attempts per cell
(10M / cells). This script simulates 2PL pass counts for each shape (abilities N(0, 1),
discriminations U(0.5, 2), difficulties N(0, 1), every agent on every challenge), fits them
and prints the seconds of the fit, the ratio to the 3 s budget, and how the fit ended.
BLAS runs on one thread and numpy asks for no transparent huge pages, as in a build (the
plugin's `limit_native_resources`); the fit's blocks of agents run on two threads where
there are two cores (irt.BLOCK_PARTS), as in a build.

Usage::

    .venv/bin/python bench/bench_irt_shapes.py                  # the default shapes
    .venv/bin/python bench/bench_irt_shapes.py --shape 147x281  # one shape (agents x challenges)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python_udfs"))

from challenge_fairness.detectors import irt  # noqa: E402
from challenge_fairness.plugin import limit_native_resources  # noqa: E402

ATTEMPTS = 10_000_000
BUDGET_SECONDS = 3.0
DEFAULT_SHAPES = (
    "147x281",
    "1000x281",
    "2000x281",
    "40x2000",
    "147x1000",
    "500x1000",
    "5000x281",
    "1000x1000",
    "10000x100",
    "200x5000",
)


def simulate(agents: int, challenges: int, seed: int) -> tuple[np.ndarray, ...]:
    """Codes, trials and passes of one cell per (agent, challenge), 10M attempts in all."""
    rng = np.random.default_rng(seed)
    per_cell = max(1, ATTEMPTS // (agents * challenges))
    theta = rng.normal(size=agents)
    a = rng.uniform(0.5, 2.0, size=challenges)
    b = rng.normal(size=challenges)
    trials = np.full((agents, challenges), per_cell)
    passes = rng.binomial(trials, 1 / (1 + np.exp(-a * (theta[:, None] - b))))
    agent, item = np.meshgrid(np.arange(agents), np.arange(challenges), indexing="ij")
    return agent.ravel(), item.ravel(), trials.ravel(), passes.ravel()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", action="append", help="agents x challenges, e.g. 147x281")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    limit_native_resources()  # as the plugin does in a build
    print(f"{'shape':>10} {'per cell':>8} {'fit s':>7} {'/ 3 s':>6}  how it ended")
    for shape in args.shape or DEFAULT_SHAPES:
        agents, challenges = (int(part) for part in shape.split("x"))
        codes = simulate(agents, challenges, args.seed)
        started = time.perf_counter()
        fit = irt.fit_2pl(*codes, agents, challenges)
        seconds = time.perf_counter() - started
        per_cell = max(1, ATTEMPTS // (agents * challenges))
        ended = fit.message if fit.converged else f"not converged: {fit.message}"
        print(
            f"{shape:>10} {per_cell:>8} {seconds:>7.2f} {seconds / BUDGET_SECONDS:>6.2f}  {ended}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
