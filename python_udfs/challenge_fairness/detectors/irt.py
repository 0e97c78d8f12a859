"""Two-parameter logistic (2PL) IRT calibration of challenges on pass/fail outcomes.

Model: agent j passes challenge i with probability expit(a_i * theta_j + d_i); the usual
2PL parameters are the discrimination a_i and the difficulty b_i = -d_i / a_i (the ability
at which the pass probability is 1/2). Abilities theta are a standard normal population
(this identifies location and scale); item parameters are fitted by marginal maximum
likelihood (Bock & Aitkin 1981) with theta integrated out on a uniform grid.

Input is binomial counts, one (agent, challenge, trials, passes) per cell, aggregated in
SQL: the attempts of one agent on one challenge are independent given its ability. The
marginal log likelihood and its analytic gradient are a few matrix products of the
(agents x challenges) count matrices with (challenges x grid) probabilities; the optimiser
is ``scipy.optimize.minimize`` (L-BFGS-B, bounded so that separable data cannot run off).

Grid: the trapezoid rule on a uniform grid integrates a smooth, Gaussian-like integrand
of standard deviation s with relative error about 2 exp(-2 pi^2 s^2 / h^2) for spacing
h, so it is accurate once h <= s. Agents with few attempts share one coarse grid, and
the fit is L-BFGS-B on it. Agents with thousands of attempts have posteriors far
narrower than that grid, and then every agent gets its own (adaptive quadrature): 19
points spanning its posterior mode +- 8 Laplace SDs (spacing 0.89 SD: trapezoid error
about 2 exp(-2 pi^2 / 0.79) ~ 3e-11, N(0, 1) mass outside ~ 1e-15), placed afresh at
every evaluation from the mode and SD of Newton steps on the agent's log posterior. Each
point carries the N(0, 1) prior density times the spacing, so the integral is the same
marginal likelihood, and one evaluation costs (agents x challenges x 19) whatever the
number of attempts behind the counts (a shared grid fine enough for 100,000 attempts per
agent needs thousands of points). The parameters then follow Newton steps with the exact
(Louis) Hessian until the Newton decrement is rounding; a step reuses the Hessian of the
step before while that keeps cutting the decrement a hundredfold (chord steps: near the
optimum the Hessian barely changes, and it costs several evaluations). That Hessian is a
2 x 2 block per challenge minus V'V, with one row of V per (agent, grid point). An
agent's 19 rows span few directions where its posterior is narrow: with many challenges
(500 parameters or more) they are replaced by the 3 to 6 rows (an eigendecomposition of
their 19 x 19 Gram matrix) that give the same V'V to rounding, so V'V costs a quarter of
the products; with fewer, V'V takes them as they are. With few agents and many
challenges (40 x 2,000: 4,000 parameters, under 200 rows) the systems and the inverse go
through the Woodbury identity on those rows, never a 4,000 x 4,000 factorisation. Each
quadrature and each information goes over the agents a block at a time (the posterior
modes too, and the start's item fits over the challenges), and the blocks are dealt into
two parts run on two threads where there are two cores, their sums added in a fixed
order (the same bits on any number of cores).
The steps start where narrow posteriors make the problem nearly separable: rounds of
per-agent modes and per-item logistic regressions on them, the modes first standardised
to the N(0, 1) population (else the rounds drift in scale, and the steps start farther
off). Should those steps not reach a zero gradient, L-BFGS-B on the shared grid gives the
Newton steps their start instead.

Standard errors: the observed information of the marginal likelihood by Louis' (1982)
identity, -d2 log L = sum_j E_j[-d2 l_j] - Var_j[d l_j] (posterior moments over the grid,
exact for the quadrature likelihood), inverted over the free challenge parameters; b's
standard error by the delta method. Abilities are EAP (posterior means) with posterior SDs.

The 2PL has one more symmetry, (theta, a) -> (-theta, -a); it is fixed by orienting the
solution so that the attempt-weighted mean discrimination is positive (abilities grow with
passes). Challenges that everyone passes or everyone fails, or that fewer than two agents
attempted, have no finite estimates: they are reported 'not_estimable' and left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import linalg, optimize, special

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
ObjectArray = npt.NDArray[np.object_]
PartResult = TypeVar("PartResult")
Block = TypeVar("Block")

STATUS_OK = "ok"
STATUS_NOT_ESTIMABLE = "not_estimable"
STATUS_BOUNDARY = "boundary"
STATUS_NOT_CONVERGED = "not_converged"

DISCRIMINATION_BOUND = 8.0  # |a| on the logit-per-SD-of-ability scale: a step function
INTERCEPT_BOUND = 25.0  # |d|: pass probabilities within expit(+-25)
GRID_LIMIT = 6.0  # abilities integrated over [-6, 6] (N(0, 1) mass outside: 2e-9)
START_SPACING = 0.25
SPACING_SAFETY = 1.5  # the shared grid serves while h <= smallest posterior SD / 1.5
# Per-agent grids span the mode +- 8 Laplace SDs (a normal's mass outside: 1e-15) in steps
# of 16/18 = 0.89 SD. The trapezoid rule's error on a normal integrand with steps of h SDs
# is about 2 exp(-2 pi^2 / h^2): 3e-11 of each agent's marginal likelihood here. Against
# 41 points, on the simulated 10M shapes of bench/bench_irt_shapes.py (40 x 2,000, 147 x
# 281, 5,000 x 281): item parameters within 2e-7 of their standard errors, abilities within
# 7e-6 (21 points: 6e-5, the Newton steps' stopping point), standard errors within 4e-5 of
# themselves, the log likelihood within 1e-7. 21 points (0.8 SD) cost 10% more in every
# evaluation; 17 points (1 SD) moved the standard errors by up to 0.6% (the information's
# second moments need a finer grid than the likelihood).
LOCAL_HALF_WIDTH = 8.0
LOCAL_POINTS = 19
MODE_ITERATIONS = 100
NEWTON_STEPS = 30  # Newton steps on per-agent grids (quadratic convergence: a handful)
NEWTON_HALVINGS = 20
NEWTON_TOLERANCE = 1e-9
# Newton steps stop once the Newton decrement g' H^-1 g (twice the predicted fall of the
# objective) is below this share of the objective: the step then moves every parameter by
# under 0.3% of its standard error (for an objective of a few million, as at 10M attempts),
# and the step after it would be rounding, or a fraction of that after a chord step (the
# quadrature moves with the modes).
NEWTON_DECREMENT_TOLERANCE = 1e-12
# A Newton step reuses the information of the step before while each such step cuts the
# decrement by at least this factor (see _adaptive_newton).
CHORD_CONTRACTION = 1e-2
# L-BFGS-B on the shared grid: to the optimum when it is the fit, to a start for the Newton
# steps (relative fall per iteration below LOOSE_FTOL) when the grid is too coarse anyway.
TIGHT_LBFGS_OPTIONS = {"maxiter": 5000, "ftol": 1e-14, "gtol": 1e-8, "maxcor": 30}
LOOSE_LBFGS_OPTIONS = {"maxiter": 5000, "ftol": 1e-7, "gtol": 1e-4, "maxcor": 30}
NEWTON_SLACK = 1e-13  # rounding allowance when comparing objective values
MODE_TOLERANCE = 1e-10
GRADIENT_TOLERANCE = 1e-3
# Where every posterior is narrower than the shared grid resolves, abilities are nearly
# known given the items and vice versa: a few rounds of modes then per-item logistic fits
# (on the modes put on the N(0, 1) scale, see `standardised`) give the Newton steps their
# start (the marginal optimum is then a few steps away).
START_ROUNDS = 4
ITEM_START_ITERATIONS = 25
START_BOUND = (DISCRIMINATION_BOUND / 2, INTERCEPT_BOUND / 2)


@dataclass(frozen=True)
class IrtFit:
    """A fitted 2PL model: per challenge (item) and per agent estimates with statuses."""

    discrimination: FloatArray
    discrimination_se: FloatArray
    intercept: FloatArray
    difficulty: FloatArray
    difficulty_se: FloatArray
    item_trials: IntArray
    item_successes: IntArray
    item_agents: IntArray
    item_status: ObjectArray
    item_reason: ObjectArray
    ability: FloatArray
    ability_se: FloatArray
    agent_trials: IntArray
    agent_successes: IntArray
    agent_status: ObjectArray
    agent_reason: ObjectArray
    discrimination_covariance: FloatArray  # items x items (NaN outside the free items)
    converged: bool
    message: str
    log_likelihood: float | None
    grid_points: int  # quadrature points per agent
    quadrature: tuple[FloatArray, FloatArray] | None = None  # (theta, log weights) of the fit


def quadrature_grid(spacing: float) -> tuple[FloatArray, FloatArray]:
    """Uniform grid on [-GRID_LIMIT, GRID_LIMIT] and log weights of N(0, 1) summing to 1."""
    points = int(np.ceil(2 * GRID_LIMIT / spacing)) + 1
    theta = np.linspace(-GRID_LIMIT, GRID_LIMIT, points)
    log_density = -0.5 * theta**2
    return theta, log_density - special.logsumexp(log_density)


def adaptive_grids(center: FloatArray, scale: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per-agent grids (agents x LOCAL_POINTS) around `center` spaced `scale` (from
    -LOCAL_HALF_WIDTH to LOCAL_HALF_WIDTH times it), with the trapezoid log weights of the
    N(0, 1) prior (log density + log spacing)."""
    unit = np.linspace(-LOCAL_HALF_WIDTH, LOCAL_HALF_WIDTH, LOCAL_POINTS)
    theta = center[:, None] + scale[:, None] * unit
    spacing = scale * (unit[1] - unit[0])
    log_weights = -0.5 * theta**2 - 0.5 * np.log(2 * np.pi) + np.log(spacing)[:, None]
    return theta, log_weights


def _shared_grid_resolves(scale: FloatArray) -> bool:
    """Whether the coarse shared grid resolves posteriors of these SDs (h <= SD / 1.5)."""
    return float(scale.min()) / SPACING_SAFETY >= 0.8 * START_SPACING


def _agent_grids(
    theta: FloatArray, log_weights: FloatArray, agents: int
) -> tuple[FloatArray, FloatArray]:
    """A shared grid (Q,) broadcast to every agent, or per-agent grids (J, Q) as they are."""
    if theta.ndim == 1:
        return (
            np.broadcast_to(theta, (agents, theta.size)),
            np.broadcast_to(log_weights, (agents, theta.size)),
        )
    return theta, log_weights


def _log_expit_inplace(z: FloatArray, scratch: FloatArray) -> FloatArray:
    """z := log(expit(z)) = min(z, 0) - log1p(exp(-|z|)), stable for any z (and several
    times faster than scipy.special.log_expit on large arrays); `scratch` (z's shape) is
    overwritten. In place because the arrays are agents x grid x items: every fresh one
    is memory the kernel has to map, which costs more than the arithmetic on it."""
    np.abs(z, out=scratch)
    np.negative(scratch, out=scratch)
    np.exp(scratch, out=scratch)
    np.log1p(scratch, out=scratch)
    np.minimum(z, 0.0, out=z)
    z -= scratch
    return z


def _expit_inplace(z: FloatArray) -> FloatArray:
    """z := expit(z) = 1 / (1 + exp(-z)) (a few ulps; about half the time of
    scipy.special.expit on large arrays)."""
    np.negative(z, out=z)
    with np.errstate(over="ignore"):  # exp(-z) = inf where z < -709: expit 0
        np.exp(z, out=z)
    z += 1.0
    return np.reciprocal(z, out=z)


@dataclass(frozen=True)
class _Posterior:
    """Quadrature of one parameter vector (a, d): per-agent grids `theta` (J x Q), marginal
    log likelihoods (J), grid posteriors (J x Q), the posterior means E_j[theta] (J), the
    posterior moments E_j[p_i] and E_j[theta p_i] (J x I), and the agents' summed
    posterior mean scores sum_j E_j[s] (2I, see _mean_scores: minus the gradient). The pass
    probabilities (J x Q x I) are not kept: `probabilities` forms them again a block of
    agents at a time (hundreds of MB as a whole, fresh memory the kernel would have to map
    at every evaluation)."""

    a: FloatArray
    d: FloatArray
    log_marginal: FloatArray
    posterior: FloatArray
    theta: FloatArray
    mean_theta: FloatArray
    mean_p: FloatArray
    mean_theta_p: FloatArray
    score: FloatArray

    def probabilities(
        self, agents: slice, items: npt.NDArray[np.bool_] | None, out: FloatArray
    ) -> FloatArray:
        """p = expit(a theta + d) of `agents` x grid x `items` (a mask, None for all), into
        the start of `out`."""
        a, d = (self.a, self.d) if items is None else (self.a[items], self.d[items])
        theta = self.theta[agents]
        shape = (theta.shape[0], theta.shape[1], a.size)
        p = out.reshape(-1)[: shape[0] * shape[1] * shape[2]].reshape(shape)
        np.multiply(theta[:, :, None], a, out=p)
        p += d
        return _expit_inplace(p)


def _log_probabilities(
    theta: FloatArray, a: FloatArray, d: FloatArray, out: FloatArray, scratch: FloatArray
) -> FloatArray:
    """log p = log expit(a theta + d) of agents x grid (`theta`) x items, into `out`."""
    np.multiply(theta[:, :, None], a, out=out)
    out += d
    return _log_expit_inplace(out, scratch=scratch)


def _posterior(
    a: FloatArray,
    d: FloatArray,
    trials: FloatArray,
    successes: FloatArray,
    theta: FloatArray,
    log_weights: FloatArray,
) -> _Posterior:
    """Integrate every agent's likelihood over its grid (shared (Q,) or per agent (J, Q)).

    The agents are independent given (a, d): each block of agents is integrated from log p
    to its posterior moments in two buffers of BLOCK_BYTES, which stay in cache."""
    theta, log_weights = _agent_grids(theta, log_weights, trials.shape[0])
    agents, points = theta.shape
    # k log p + (n - k) log(1 - p) with log(1 - p) = log p - z: n log p - (n - k) z, whose
    # second term sums over the items before the grid (z is linear in theta).
    failures = trials - successes
    linear = theta * (failures @ a)[:, None] + (failures @ d)[:, None] - log_weights
    log_marginal, posterior, mean_theta = (
        np.empty(agents),
        np.empty((agents, points)),
        np.empty(agents),
    )
    mean_p, mean_theta_p = np.empty((agents, a.size)), np.empty((agents, a.size))
    block_agents = min(_block_size(points, a.size), agents)

    def part(blocks: list[slice]) -> FloatArray:
        """Integrate these blocks into their rows of the results; their summed mean scores
        sum_j (E_j[theta] k_j - n_j E_j[theta p], -n_j E_j[p]) (the k_j of E_j[r] are
        added once, below)."""
        buffer, scratch = np.empty((2, block_agents, points, a.size))
        score = np.zeros((2, a.size))
        for block in blocks:
            size = theta[block].shape[0]
            log_p = _log_probabilities(theta[block], a, d, buffer[:size], scratch[:size])
            log_joint = np.einsum("ji,jqi->jq", trials[block], log_p) - linear[block]
            log_marginal[block] = special.logsumexp(log_joint, axis=1)
            posterior[block] = np.exp(log_joint - log_marginal[block][:, None])
            p = np.exp(log_p, out=log_p)
            mean_p[block] = np.einsum("jq,jqi->ji", posterior[block], p)
            mean_theta_p[block] = np.einsum("jq,jqi->ji", posterior[block] * theta[block], p)
            mean_theta[block] = np.einsum("jq,jq->j", posterior[block], theta[block])
            score[0] += mean_theta[block] @ successes[block]
            score[0] -= np.einsum("ji,ji->i", trials[block], mean_theta_p[block])
            score[1] -= np.einsum("ji,ji->i", trials[block], mean_p[block])
        return score

    parts = _in_parts(_agent_blocks(theta.shape, a.size), part)
    score = parts[0]
    for more in parts[1:]:
        score += more
    score[1] += successes.sum(axis=0)
    return _Posterior(
        a=a,
        d=d,
        log_marginal=log_marginal,
        posterior=posterior,
        theta=theta,
        mean_theta=mean_theta,
        mean_p=mean_p,
        mean_theta_p=mean_theta_p,
        score=score.reshape(-1),
    )


def negative_log_likelihood(
    parameters: FloatArray,
    trials: FloatArray,
    successes: FloatArray,
    theta: FloatArray,
    log_weights: FloatArray,
) -> tuple[float, FloatArray]:
    """Marginal negative log likelihood (binomial constants dropped) and its gradient.

    ``parameters`` = (a_1..a_I, d_1..d_I); ``trials``/``successes`` are agents x items;
    ``theta``/``log_weights`` one grid for all agents (Q,) or one per agent (J, Q).
    d/da_i = -sum_j (k_ji E_j[theta] - n_ji E_j[theta p_i]), d/dd_i = -sum_j (k_ji - n_ji E_j[p_i]).
    """
    items = trials.shape[1]
    a, d = parameters[:items], parameters[items:]
    return _objective(_posterior(a, d, trials, successes, theta, log_weights))


def _mean_scores(
    q: _Posterior, trials: FloatArray, successes: FloatArray, agents: slice = slice(None)
) -> tuple[FloatArray, FloatArray]:
    """The posterior mean score E_j[s] = (E_j[theta r], E_j[r]) with r = k - n p of each of
    `agents` (rows of J x I each): the gradient is minus their sum over agents (q.score)."""
    trials, successes = trials[agents], successes[agents]
    return (
        successes * q.mean_theta[agents, None] - trials * q.mean_theta_p[agents],
        successes - trials * q.mean_p[agents],
    )


def _objective(q: _Posterior) -> tuple[float, FloatArray]:
    """negative_log_likelihood from the quadrature of its parameters."""
    return float(-q.log_marginal.sum()), -q.score


def _mirrored(matrix: FloatArray, lower: bool, block: int = 256) -> FloatArray:
    """`matrix` (square) made symmetric from its lower (else upper) triangle, in place: a
    band of columns at a time, as 2I x 2I matrices are tens of MB."""
    size = matrix.shape[0]
    for start in range(0, size, block):
        stop = min(start + block, size)
        diagonal = matrix[start:stop, start:stop]
        if lower:
            matrix[start:stop, stop:] = matrix[stop:, start:stop].T
            diagonal[:] = np.tril(diagonal) + np.tril(diagonal, -1).T
        else:
            matrix[stop:, start:stop] = matrix[start:stop, stop:].T
            diagonal[:] = np.triu(diagonal) + np.triu(diagonal, 1).T
    return matrix


def _add_blocks(matrix: FloatArray, aa: FloatArray, ad: FloatArray, dd: FloatArray) -> FloatArray:
    """`matrix` (2I x 2I, order a_1..a_I, d_1..d_I) plus one 2 x 2 block per item, in place."""
    items = aa.size
    index = np.arange(items)
    matrix[index, index] += aa
    matrix[index, index + items] += ad
    matrix[index + items, index] += ad
    matrix[index + items, index + items] += dd
    return matrix


# V of the information is formed a block of agents at a time, about this many bytes each:
# the blocks stay in cache and reuse one buffer where the whole of V (agents x 19 x 2I
# doubles: 170 MB at 2,000 x 281) would be fresh memory for the kernel to map at every step.
BLOCK_BYTES = 1 << 23
# The posterior modes and the items' start fits are found a block of agents (of items) at a
# time, about this many bytes per agents x items array (a few of them live at once, in the
# second-level cache), each block to its own convergence. At 5,004 agents x 281
# challenges on two threads, from the fit's start: the modes 0.030 s against 0.048 s with
# every agent at once, the item fits 0.044 against 0.070 s (blocks of a quarter or half
# this size were no faster).
CELL_BLOCK_BYTES = 1 << 20
# The blocks of agents of a quadrature or an information are independent: they are dealt
# into this many parts (blocks 0, 2, 4, ... and 1, 3, 5, ...), each with its own buffers
# and partial sums, run on as many threads as there are cores (numpy and BLAS release the
# GIL on blocks this size), and the parts' sums are added in part order: the same bits on
# any number of cores (see _in_parts).
BLOCK_PARTS = 2
# An agent's rows of V are reduced to the directions of its V_j'V_j whose eigenvalues
# exceed this share of its largest: the rest is rounding (eigh's own error is about 1e-16).
COMPRESSION_TOLERANCE = 1e-15
# ... where there are at least this many parameters (2I), or fewer rows than parameters
# (the Woodbury form). Below it all 19 rows of an agent go into V'V as they are: one
# symmetric rank-k update of them costs less than reducing them (a Q x Q Gram matrix and an
# eigendecomposition per agent, then the product with the basis). Measured on one thread
# at 10M attempts, one information with its dense form and factor, rows as they are
# against reduced (2026-12-05, three runs each, 21 grid points): 0.48 against 0.82 s at
# 10,000 agents x 100 challenges, 0.39 against 0.50 s at 5,000 x 150, 0.47 against 0.50 s
# at 4,000 x 200, 0.57 against 0.51 s at 3,000 x 281, 0.96 against 0.85 s at 5,000 x 281;
# with 19 points, 0.79 to 1.09 against 0.73 to 0.86 s at 5,004 x 281 (six runs, a noisy host).
COMPRESSION_MIN_PARAMETERS = 500
# Items per block when the Woodbury form's R x R matrix is accumulated (R x 2 x this many
# doubles at a time).
WOODBURY_ITEMS_PER_BLOCK = 256


@dataclass(frozen=True)
class _Information:
    """The observed information H = C - V'V (Louis' identity), kept in its two factors.

    C is the complete-data information, one 2 x 2 block (a_i, d_i) per item: `aa`, `ad`,
    `dd` (I each). V has one row per (agent, grid point) with posterior mass w:
    sqrt(w) (s - E_j[s]), the agent's score s = (theta r, r) about its posterior mean, so
    V'V = sum_j Var_j[s] is the missing information. V is kept as `pieces`, one per block
    of agents (R_b x 2I), each agent's rows reduced to the fewer ones with the same V_j'V_j
    (see `_information`), or, where its rows were not kept, -V'V is kept instead (its upper
    triangle, `missing_upper`). Few rows against many items (a handful of agents, thousands
    of challenges) make H a block diagonal minus a low-rank term: its systems are solved
    through the R x R matrix I - V C^-1 V' (Woodbury), never forming the 2I x 2I matrix.
    """

    aa: FloatArray
    ad: FloatArray
    dd: FloatArray
    pieces: tuple[FloatArray, ...]
    missing_upper: FloatArray | None = None

    @property
    def low_rank(self) -> bool:
        """Whether the Woodbury form is the cheaper one (fewer rows than parameters)."""
        rows = sum(piece.shape[0] for piece in self.pieces)
        return self.missing_upper is None and rows < 2 * self.aa.size

    @cached_property
    def centred(self) -> FloatArray:
        """V (R x 2I) as one matrix (ValueError where its rows were not kept)."""
        if self.missing_upper is not None:
            raise ValueError("the rows of V were not kept, only V'V")
        return np.concatenate([np.zeros((0, 2 * self.aa.size)), *self.pieces])

    def dense(self) -> FloatArray:
        """H as a 2I x 2I matrix, rows and columns a_1..a_I, d_1..d_I (formed once: the
        Newton step and the covariance at the optimum share it; do not modify)."""
        return self._dense

    @cached_property
    def _dense(self) -> FloatArray:
        # -V'V by symmetric rank-k updates (half the products of V.T @ V), one per piece,
        # into the upper triangle; piece.T is the piece's memory in Fortran order, as BLAS
        # reads it: nothing is copied. Where the rows were not kept, -V'V is already formed
        # (copied: H is formed in place, and below 500 parameters the copy is at most 2 MB).
        width = 2 * self.aa.size
        information: FloatArray = (
            np.zeros((width, width), order="F")
            if self.missing_upper is None
            else self.missing_upper.copy(order="F")
        )
        for piece in self.pieces:
            information = linalg.blas.dsyrk(
                -1.0, piece.T, beta=1.0, c=information, trans=0, overwrite_c=True
            )
        return _add_blocks(_mirrored(information, lower=False), self.aa, self.ad, self.dd)

    @cached_property
    def _cholesky(self) -> tuple[FloatArray, int]:
        """dpotrf of the dense H: its lower factor and LAPACK's info (> 0: not positive
        definite)."""
        factor, failed = linalg.lapack.dpotrf(self.dense(), lower=True)
        return factor, int(failed)

    @cached_property
    def _undamped_woodbury(self) -> _Woodbury:
        return self.woodbury(np.zeros(2 * self.aa.size))

    def solve(self, vector: FloatArray) -> FloatArray:
        """H^-1 vector, or LinAlgError where H is not positive definite."""
        if self.low_rank:
            return self._undamped_woodbury.solve(vector)
        factor, failed = self._cholesky
        if failed:
            raise linalg.LinAlgError("the information matrix is not positive definite")
        solved: FloatArray = linalg.cho_solve((factor, True), vector)
        return solved

    def inverse(self) -> FloatArray:
        """H^-1, or LinAlgError where H is not positive definite."""
        if self.aa.size == 0:  # every item at a bound: nothing to invert
            return np.zeros((0, 0))
        if self.low_rank:
            return self._undamped_woodbury.inverse()
        factor, failed = self._cholesky
        if failed:
            raise linalg.LinAlgError("the information matrix is not positive definite")
        inverse, failed = linalg.lapack.dpotri(factor, lower=True)
        if failed:
            raise linalg.LinAlgError("the information matrix is singular")
        return _mirrored(inverse, lower=True)

    def covariance_parts(self) -> _CovarianceParts:
        """The parts of H^-1 the estimates report (LinAlgError where H is not positive
        definite): with many challenges the whole 2I x 2I inverse is hundreds of MB."""
        if self.low_rank and self.aa.size:
            return self._undamped_woodbury.covariance_parts()
        return _CovarianceParts.of(self.inverse())

    def diagonal(self) -> FloatArray:
        """diag(H)."""
        if not self.low_rank:
            return np.diag(self.dense()).copy()
        missing = np.einsum("ri,ri->i", self.centred, self.centred)
        return np.concatenate([self.aa, self.dd]) - missing

    def woodbury(self, damping: FloatArray) -> _Woodbury:
        """The factors of H + diag(damping) for solves, or LinAlgError where it is not
        positive definite: C + diag(damping) must be (each 2 x 2 block), and then H + ... is
        exactly when K = I - V (C + ...)^-1 V' is (both are C^1/2 (I - X'X) C^1/2 with
        X = V C^-1/2, and X'X and XX' share their nonzero eigenvalues)."""
        items = self.aa.size
        aa, dd = self.aa + damping[:items], self.dd + damping[items:]
        determinant = aa * dd - self.ad**2
        if not (np.all(aa > 0) and np.all(determinant > 0)):
            raise linalg.LinAlgError("a block of the complete information is not positive definite")
        block_inverse = (dd / determinant, -self.ad / determinant, aa / determinant)
        # C^-1 = M M' with M each block's lower Cholesky factor, so V C^-1 V' = X X' with
        # X = V M: K = I - X X' by symmetric rank-k updates a block of items at a time,
        # never the R x 2I matrix V C^-1 (fresh memory at every step). M's last entry,
        # sqrt(inv_dd - m21^2), is exactly 1 / sqrt(dd): no cancellation where a block is
        # nearly singular.
        inv_aa, inv_ad, _ = block_inverse
        m11 = np.sqrt(inv_aa)
        m21 = inv_ad / m11
        m22 = 1 / np.sqrt(dd)
        rows = self.centred
        capacitance = np.asfortranarray(np.eye(rows.shape[0]))
        for start in range(0, items, WOODBURY_ITEMS_PER_BLOCK):
            block = slice(start, start + WOODBURY_ITEMS_PER_BLOCK)
            v_a, v_d = rows[:, :items][:, block], rows[:, items:][:, block]
            x = np.hstack([v_a * m11[block] + v_d * m21[block], v_d * m22[block]])
            capacitance = linalg.blas.dsyrk(
                -1.0, x.T, beta=1.0, c=capacitance, trans=1, overwrite_c=True
            )
        capacitance = _mirrored(capacitance, lower=False)
        return _Woodbury(block_inverse, rows, linalg.cholesky(capacitance, lower=True))


@dataclass(frozen=True)
class _Woodbury:
    """H^-1 = C^-1 + P' K^-1 P with P = V C^-1 and K = I - P V' = L L'."""

    block_inverse: tuple[FloatArray, FloatArray, FloatArray]  # C^-1 blocks: aa, ad, dd
    rows: FloatArray  # V
    lower: FloatArray

    def _block_product(self, vector: FloatArray) -> FloatArray:
        """C^-1 vector."""
        inv_aa, inv_ad, inv_dd = self.block_inverse
        v_a, v_d = vector[: inv_aa.size], vector[inv_aa.size :]
        return np.concatenate([inv_aa * v_a + inv_ad * v_d, inv_ad * v_a + inv_dd * v_d])

    def solve(self, vector: FloatArray) -> FloatArray:
        """H^-1 vector: P vector = V (C^-1 vector) and P' y = C^-1 (V' y), P never formed."""
        block_solved = self._block_product(vector)
        low_rank = linalg.cho_solve((self.lower, True), self.rows @ block_solved)
        solved: FloatArray = block_solved + self._block_product(self.rows.T @ low_rank)
        return solved

    def inverse(self) -> FloatArray:
        """H^-1 as a 2I x 2I matrix."""
        whitened = self._whitened()
        return _add_blocks(whitened.T @ whitened, *self.block_inverse)

    def _whitened(self) -> FloatArray:
        """L^-1 P: H^-1 = C^-1 + (L^-1 P)' (L^-1 P). P = V C^-1 is formed in one array, a
        block of items at a time (R x 2I is tens of MB at thousands of challenges: each
        temporary of its size would be fresh memory), then solved in place."""
        inv_aa, inv_ad, inv_dd = self.block_inverse
        items = inv_aa.size
        v_a, v_d = self.rows[:, :items], self.rows[:, items:]
        projected = np.empty((self.rows.shape[0], 2 * items), order="F")
        p_a, p_d = projected[:, :items], projected[:, items:]
        for start in range(0, items, WOODBURY_ITEMS_PER_BLOCK):
            block = slice(start, start + WOODBURY_ITEMS_PER_BLOCK)
            np.multiply(v_a[:, block], inv_aa[block], out=p_a[:, block])
            p_a[:, block] += v_d[:, block] * inv_ad[block]
            np.multiply(v_a[:, block], inv_ad[block], out=p_d[:, block])
            p_d[:, block] += v_d[:, block] * inv_dd[block]
        whitened: FloatArray = linalg.solve_triangular(
            self.lower, projected, lower=True, overwrite_b=True
        )
        return whitened

    def covariance_parts(self) -> _CovarianceParts:
        """_CovarianceParts of H^-1, its a block by a rank-k update of the rows."""
        inverse_aa, inverse_ad, inverse_dd = self.block_inverse
        whitened = self._whitened()
        w_a, w_d = whitened[:, : inverse_aa.size], whitened[:, inverse_aa.size :]
        discrimination = _mirrored(linalg.blas.dsyrk(1.0, w_a.T, trans=0), lower=False)
        discrimination[np.diag_indices_from(discrimination)] += inverse_aa
        return _CovarianceParts(
            discrimination=discrimination,
            intercept_variance=inverse_dd + np.einsum("ri,ri->i", w_d, w_d),
            cross=inverse_ad + np.einsum("ri,ri->i", w_a, w_d),
        )


@dataclass(frozen=True)
class _CovarianceParts:
    """What the estimates need of the covariance H^-1 of (a_1..a_m, d_1..d_m): the a block
    (m x m), var(d_i) and cov(a_i, d_i)."""

    discrimination: FloatArray
    intercept_variance: FloatArray
    cross: FloatArray

    @classmethod
    def of(cls, covariance: FloatArray) -> _CovarianceParts:
        """The parts of a whole 2m x 2m covariance."""
        items = covariance.shape[0] // 2
        return cls(
            discrimination=covariance[:items, :items],
            intercept_variance=np.diag(covariance)[items:].copy(),
            cross=np.diag(covariance[:items, items:]).copy(),
        )


def _block_size(points: int, width: int) -> int:
    """Agents per block of about BLOCK_BYTES of (agent, grid point, `width`) doubles."""
    return max(1, BLOCK_BYTES // (8 * points * max(1, width)))


def _agent_blocks(shape: tuple[int, ...], width: int) -> Iterator[slice]:
    """Slices of the agents of posteriors of `shape` (J x Q) in blocks of _block_size."""
    agents, points = shape
    size = _block_size(points, width)
    return (slice(start, start + size) for start in range(0, agents, size))


def _cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def _in_parts(
    blocks: Iterable[Block], work: Callable[[list[Block]], PartResult]
) -> list[PartResult]:
    """`work` on each part of the blocks (BLOCK_PARTS parts, dealt in turn), on up to one
    thread per core, its results in part order (one part, or one core: in this thread)."""
    dealt = list(blocks)
    parts = [dealt[start::BLOCK_PARTS] for start in range(min(BLOCK_PARTS, len(dealt)))]
    threads = min(len(parts), _cores())
    if threads <= 1:
        return [work(part) for part in parts]
    with ThreadPoolExecutor(threads, thread_name_prefix="irt-blocks") as pool:
        return list(pool.map(work, parts))


def _information(
    q: _Posterior,
    trials: FloatArray,
    successes: FloatArray,
    items: npt.NDArray[np.bool_] | None = None,
) -> _Information:
    """The observed information of the parameters of `items` (a mask, None for all) at the
    parameters of the quadrature `q`, in factors, one pass over blocks of agents.

    Complete-data information, item-diagonal blocks: sum_j n_ji E_j[p (1 - p) (theta^2,
    theta, 1)]. Missing information: sum_j Var_j[s], s = (theta r, r), r_i = k_ji - n_ji p_i,
    as the rows of V. An agent's Q rows V_j are replaced by the fewer rows its V_j'V_j
    needs: with V_j V_j' = U diag(lam) U' (Q x Q), the rows of U'V_j are orthogonal with
    norms sqrt(lam) and give the same V_j'V_j; those with lam below COMPRESSION_TOLERANCE x
    the agent's largest are left out (V_j'V_j then changes by rounding). Narrow posteriors
    (thousands of attempts per agent) keep 3 to 6 of 19. With few parameters (see
    COMPRESSION_MIN_PARAMETERS) the rows go into -V'V as they are instead."""
    if items is not None and items.all():
        items = None
    columns = slice(None) if items is None else items
    all_trials, all_successes = trials, successes
    trials, successes = trials[:, columns], successes[:, columns]
    agents, points = q.posterior.shape
    width = 2 * trials.shape[1]
    reduce = not width or width >= COMPRESSION_MIN_PARAMETERS or agents * points < width
    block_agents = min(_block_size(points, width), agents)

    def part(blocks: list[slice]) -> tuple[FloatArray, list[FloatArray], FloatArray | None]:
        """The moments, the pieces of V and -V'V (upper, where the rows are not kept) of
        these blocks."""
        moments = np.zeros((3, trials.shape[1]))
        pieces = []
        missing_upper = None if reduce else np.zeros((width, width), order="F")
        # p and the rows of a block: buffers of about BLOCK_BYTES / 2 and BLOCK_BYTES
        p_buffer, buffer = (
            np.empty(block_agents * points * width // 2),
            np.empty((block_agents, points, width)),
        )
        for block in blocks:
            p = q.probabilities(block, items, out=p_buffer)
            posterior, theta = q.posterior[block], q.theta[block]
            scores = buffer[: p.shape[0]]  # s - E_j[s]; the rows of V are sqrt(w) times them
            score_a, score_d = scores[:, :, : width // 2], scores[:, :, width // 2 :]
            np.subtract(1.0, p, out=score_d)  # p (1 - p), then the moments, then r
            score_d *= p
            weights = np.stack([posterior * theta**2, posterior * theta, posterior], axis=1)
            moments += np.einsum("ji,jmi->mi", trials[block], weights @ score_d)
            np.multiply(trials[block][:, None, :], p, out=score_d)
            np.subtract(successes[block][:, None, :], score_d, out=score_d)  # r
            np.multiply(theta[:, :, None], score_d, out=score_a)  # theta r
            mean_a, mean_d = _mean_scores(q, all_trials, all_successes, block)
            score_a -= mean_a[:, None, columns]
            score_d -= mean_d[:, None, columns]
            root = np.sqrt(posterior)
            if missing_upper is not None:  # V'V's symmetric rank-k update with the rows of V
                scores *= root[:, :, None]
                missing_upper = linalg.blas.dsyrk(
                    -1.0,
                    scores.reshape(-1, width).T,
                    beta=1.0,
                    c=missing_upper,
                    trans=0,
                    overwrite_c=True,
                )
                continue
            # V_j V_j' = D S S' D with D = diag(sqrt(w)): the scaling goes on the Q x Q Gram
            # matrix and on the basis, never on the rows
            gram = scores @ scores.transpose(0, 2, 1)
            gram *= root[:, :, None] * root[:, None, :]
            lam, vectors = np.linalg.eigh(gram)  # ascending
            kept = int((lam > COMPRESSION_TOLERANCE * lam[:, -1:]).sum(axis=1).max())
            basis = vectors[:, :, points - kept :].transpose(0, 2, 1) * root[:, None, :]
            pieces.append((basis @ scores).reshape(basis.shape[0] * kept, width))
        return moments, pieces, missing_upper

    parts = _in_parts(_agent_blocks(q.posterior.shape, width), part)
    moments, pieces, missing_upper = parts[0]
    for more_moments, more_pieces, more_missing in parts[1:]:
        moments += more_moments
        pieces += more_pieces
        if missing_upper is not None and more_missing is not None:
            missing_upper += more_missing
    aa, ad, dd = moments
    return _Information(aa, ad, dd, tuple(pieces), missing_upper)


def observed_information(
    parameters: FloatArray,
    trials: FloatArray,
    successes: FloatArray,
    theta: FloatArray,
    log_weights: FloatArray,
) -> FloatArray:
    """Observed information (Hessian of the negative marginal log likelihood), Louis' identity.

    Order of rows/columns: a_1..a_I, d_1..d_I.
    """
    items = trials.shape[1]
    a, d = parameters[:items], parameters[items:]
    q = _posterior(a, d, trials, successes, theta, log_weights)
    return _information(q, trials, successes).dense()


def _dense_counts(
    agent_codes: IntArray,
    item_codes: IntArray,
    trials: IntArray,
    successes: IntArray,
    agents: int,
    items: int,
) -> tuple[FloatArray, FloatArray]:
    """Agents x items matrices of trials and successes (duplicate cells summed)."""
    cells = agent_codes * items + item_codes

    def summed(counts: IntArray) -> FloatArray:
        matrix = np.bincount(cells, weights=counts, minlength=agents * items)  # float64
        return np.asarray(matrix, dtype=np.float64).reshape(agents, items)

    return summed(trials), summed(successes)


def posterior_modes(
    a: FloatArray, d: FloatArray, trials: FloatArray, successes: FloatArray, start: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Each agent's posterior mode of theta and the Laplace SD there (1 / sqrt(curvature)).

    Damped Newton steps on the log posterior, a block of agents (CELL_BLOCK_BYTES of agents
    x items doubles) at a time until every step of the block is below MODE_TOLERANCE: the
    2PL log likelihood is concave in theta and the N(0, 1) prior adds curvature 1, so it
    converges from any start. The blocks are independent and run in parts (_in_parts).
    """
    theta, scale = start.copy(), np.empty(start.shape)
    a_squared = a**2

    def part(blocks: list[slice]) -> None:
        for block in blocks:
            mode, cells, passes = theta[block], trials[block], successes[block]
            success_slope = passes @ a
            for _ in range(MODE_ITERATIONS):
                slope, curvature = _mode_derivatives(mode, a, d, cells, success_slope, a_squared)
                step = np.clip(slope / curvature, -1.0, 1.0)
                mode += step
                if float(np.max(np.abs(step), initial=0.0)) < MODE_TOLERANCE:
                    break
            _, curvature = _mode_derivatives(mode, a, d, cells, success_slope, a_squared)
            scale[block] = 1 / np.sqrt(curvature)

    size = max(1, CELL_BLOCK_BYTES // (8 * max(1, a.size)))
    _in_parts((slice(first, first + size) for first in range(0, theta.size, size)), part)
    return theta, scale


def _mode_derivatives(
    theta: FloatArray,
    a: FloatArray,
    d: FloatArray,
    trials: FloatArray,
    success_slope: FloatArray,
    a_squared: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """The slope sum_i a_i (k_ji - n_ji p_ji) - theta_j and curvature sum_i a_i^2 n_ji p_ji
    (1 - p_ji) + 1 of every agent's log posterior at `theta` (success_slope = k a)."""
    expected, variance = _binomial_moments(theta, a, d, trials)
    return success_slope - expected @ a - theta, variance @ a_squared + 1


def _binomial_moments(
    theta: FloatArray, a: FloatArray, d: FloatArray, trials: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """n p and n p (1 - p) (agents x items) with p = expit(a theta + d): the mean and the
    variance of each cell's passes given the abilities `theta`."""
    p = np.multiply.outer(theta, a)
    p += d
    _expit_inplace(p)
    expected = trials * p  # n p
    p *= expected  # n p^2
    return expected, np.subtract(expected, p, out=p)  # n p (1 - p)


def standardised(mode: FloatArray, scale: FloatArray) -> FloatArray:
    """Posterior modes moved and scaled onto the N(0, 1) population that identifies the
    model: mean 0, and the modes and their Laplace SDs (`scale`) divided by one factor c
    that makes mean(mode^2) + mean(SD^2) = 1 (the law of total variance, Var(theta) =
    Var(E[theta | data]) + E[Var(theta | data)]). Item fits on the raw modes drift in
    location and scale from round to round (the modes' variance was 1.18 after four rounds
    at 5,000 agents x 281 challenges, and the first Newton decrement 58 against 1.1 from
    standardised ones)."""
    centred = mode - mode.mean()
    standardised_modes: FloatArray = centred / np.sqrt(np.mean(centred**2) + np.mean(scale**2))
    return standardised_modes


def item_fits_given_abilities(
    theta: FloatArray, trials: FloatArray, successes: FloatArray, start: FloatArray
) -> FloatArray:
    """Each item's (a, d) by logistic regression of its passes on the abilities ``theta``.

    Newton steps on the binomial log likelihood, the items of a block (CELL_BLOCK_BYTES of
    agents x items doubles) at once until every step of the block is below 1e-6 (2 x 2
    systems solved in closed form), each step at most 1 in either parameter and the result
    kept inside START_BOUND of the bounds, so no start is pinned to a bound the fit keeps
    items at. The blocks are independent and run in parts (_in_parts).
    """
    items = trials.shape[1]
    fitted = start.copy()
    a, d = fitted[:items], fitted[items:]  # views: each block writes its own items

    def part(blocks: list[slice]) -> None:
        for block in blocks:
            a[block], d[block] = _item_fits(
                theta, trials[:, block], successes[:, block], a[block], d[block]
            )

    size = max(1, CELL_BLOCK_BYTES // (8 * max(1, theta.size)))
    _in_parts((slice(first, first + size) for first in range(0, items, size)), part)
    return fitted


def _item_fits(
    theta: FloatArray, trials: FloatArray, successes: FloatArray, a: FloatArray, d: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """item_fits_given_abilities of a block of items from (a, d)."""
    for _ in range(ITEM_START_ITERATIONS):
        expected, weight = _binomial_moments(theta, a, d, trials)
        residual = successes - expected
        g_a, g_d = theta @ residual, residual.sum(axis=0)
        h_aa, h_ad, h_dd = (theta**2) @ weight, theta @ weight, weight.sum(axis=0)
        determinant = h_aa * h_dd - h_ad**2
        safe = determinant > 1e-12 * np.maximum(h_aa * h_dd, 1e-300)
        with np.errstate(divide="ignore", invalid="ignore"):
            step_a = np.where(safe, (h_dd * g_a - h_ad * g_d) / determinant, 0.0)
            step_d = np.where(safe, (h_aa * g_d - h_ad * g_a) / determinant, 0.0)
        a = np.clip(a + np.clip(step_a, -1, 1), -START_BOUND[0], START_BOUND[0])
        d = np.clip(d + np.clip(step_d, -1, 1), -START_BOUND[1], START_BOUND[1])
        if float(np.max(np.abs(np.concatenate([step_a, step_d])), initial=0.0)) < 1e-6:
            break
    return a, d


# Levenberg-Marquardt damping tried in turn: H, then H + mu diag|H| for growing mu.
DAMPING_LADDER = (0.0, *np.logspace(-6, 6, 13))


def _damped_step(
    diagonal: FloatArray, gradient: FloatArray, solve: Callable[[FloatArray], FloatArray]
) -> FloatArray:
    """(H + mu D)^-1 g with D = diag|H| (`diagonal` = diag H) for the smallest mu of the
    ladder where `solve(mu D)` does not raise LinAlgError (H + mu D positive definite); a
    gradient step scaled by the largest curvature if none does."""
    scale = np.maximum(np.abs(diagonal), 1e-12)
    for damping in DAMPING_LADDER:
        try:
            return solve(damping * scale)
        except linalg.LinAlgError:
            continue
    fallback: FloatArray = gradient / max(1.0, float(scale.max()))
    return fallback


def _damped_newton_step(hessian: FloatArray, gradient: FloatArray) -> FloatArray:
    """H^-1 g, or where H is not positive definite (the marginal likelihood is not concave
    far from its optimum) (H + mu D)^-1 g with D = diag|H| and the smallest mu of 1e-6,
    1e-5, ..., 1e6 that makes it so (Levenberg-Marquardt); a gradient step scaled by the
    largest curvature if none does."""
    return _damped_step(
        np.diag(hessian),
        gradient,
        lambda damping: _cholesky_solve(hessian + np.diag(damping), gradient),
    )


def _cholesky_solve(matrix: FloatArray, vector: FloatArray) -> FloatArray:
    """matrix^-1 vector by Cholesky, or LinAlgError where matrix is not positive definite."""
    solved: FloatArray = linalg.cho_solve(linalg.cho_factor(matrix, lower=True), vector)
    return solved


def _newton_step(information: _Information, gradient: FloatArray) -> FloatArray:
    """_damped_newton_step of the information: the same steps, solved in the Woodbury form
    where the information has fewer rows than parameters (few agents, many challenges).
    The undamped factorisation stays with the information: where the steps stop without
    moving, it gives the covariance too."""

    def solve(damping: FloatArray) -> FloatArray:
        if not damping.any():
            return information.solve(gradient)
        if information.low_rank:
            return information.woodbury(damping).solve(gradient)
        return _cholesky_solve(information.dense() + np.diag(damping), gradient)

    return _damped_step(information.diagonal(), gradient, solve)


@dataclass(frozen=True)
class _Optimum:
    """Where a fit ended: the parameters, the grids (theta, log weights) they were fitted
    on with their quadrature, objective and gradient, and the information there restricted
    to the items off their bounds when the last Newton step formed it (else None)."""

    parameters: FloatArray
    theta: FloatArray
    log_weights: FloatArray
    q: _Posterior
    value: float
    gradient: FloatArray
    information: _Information | None = None


def _evaluated(
    parameters: FloatArray,
    trials: FloatArray,
    successes: FloatArray,
    theta: FloatArray,
    log_weights: FloatArray,
) -> _Optimum:
    """The _Optimum of `parameters` on the grid (theta, log weights), information not formed."""
    items = trials.shape[1]
    q = _posterior(parameters[:items], parameters[items:], trials, successes, theta, log_weights)
    value, gradient = _objective(q)
    return _Optimum(parameters, theta, log_weights, q, value, gradient)


def _adaptive_newton(
    parameters: FloatArray, trials: FloatArray, successes: FloatArray, mode: FloatArray
) -> _Optimum:
    """Newton steps on the marginal likelihood with per-agent grids around the current modes.

    Every evaluation places each agent's grid on its posterior mode under the parameters
    being evaluated, so the quadrature is accurate wherever the step goes, and the steps
    use the exact (Louis) Hessian with halving until the objective falls. Items at a bound
    stay there. The steps stop after a step whose Newton decrement is rounding, or where
    the next one would move every parameter by less than NEWTON_TOLERANCE: that point is
    the optimum, and the information is returned when it was formed there.

    An information costs several evaluations (at 5,000 agents x 281 challenges, about 1 s
    against 0.3 s), so a step reuses the one formed for the step before (a chord step,
    the same factorisation) while that keeps converging: while it cuts the decrement by
    CHORD_CONTRACTION or more, the step before needed no halving, and the same items are
    off their bounds; else, or where no halving of a chord step lowers the objective, the
    information is formed afresh at the same point. Near the optimum the information
    barely changes over a step, and a chord step lands as close as a Newton step would
    (the 10M shapes of bench_irt_shapes.py: decrements 1.1, 5e-6, 1e-9). The optimum is
    the same to the tolerance; the standard errors come from the information formed at
    it (_Fit._finish).
    """
    items = trials.shape[1]

    def evaluate(
        x: FloatArray, start: FloatArray
    ) -> tuple[float, FloatArray, FloatArray, FloatArray, FloatArray, _Posterior]:
        centre, scale = posterior_modes(x[:items], x[items:], trials, successes, start)
        theta, log_weights = adaptive_grids(centre, scale)
        q = _posterior(x[:items], x[items:], trials, successes, theta, log_weights)
        value, gradient = _objective(q)
        return value, gradient, theta, log_weights, centre, q

    x = parameters.copy()
    value, gradient, theta, log_weights, mode, q = evaluate(x, mode)
    # the last information formed, with the items it is for, and whether it is x's own
    formed: tuple[_Information, npt.NDArray[np.bool_]] | None = None
    formed_here, chord_allowed, last_decrement = False, False, np.inf
    for _ in range(NEWTON_STEPS):
        interior = ~_at_bound(x, items)
        free = np.concatenate([interior, interior])
        if not free.any():
            break
        chord = False
        if chord_allowed and formed is not None and np.array_equal(formed[1], interior):
            step = _newton_step(formed[0], gradient[free])
            decrement = float(gradient[free] @ step)
            chord = decrement <= CHORD_CONTRACTION * last_decrement
        if not chord:
            formed = (_information(q, trials, successes, interior), interior)
            formed_here = True
            step = _newton_step(formed[0], gradient[free])
            decrement = float(gradient[free] @ step)
        if float(np.max(np.abs(step))) < NEWTON_TOLERANCE:
            break  # x is the optimum
        length = 1.0
        for _ in range(NEWTON_HALVINGS):
            candidate = _clipped(x, free, length * step)
            trial = evaluate(candidate, mode)
            if trial[0] <= value + NEWTON_SLACK * max(1.0, abs(value)):
                break
            length /= 2
        else:
            if chord:  # the reused information may be what misleads: form x's own
                chord_allowed = False
                continue
            break  # no step lowers the objective: x is the optimum to rounding
        x = candidate
        value, gradient, theta, log_weights, mode, q = trial
        formed_here = False  # the information was formed before the step
        chord_allowed, last_decrement = length == 1.0, decrement
        moved = float(np.max(np.abs(length * step)))
        if moved < NEWTON_TOLERANCE or decrement <= NEWTON_DECREMENT_TOLERANCE * max(1, abs(value)):
            break
    information = formed[0] if formed is not None and formed_here else None
    return _Optimum(x, theta, log_weights, q, value, gradient, information)


def _clipped(parameters: FloatArray, free: npt.NDArray[np.bool_], step: FloatArray) -> FloatArray:
    """`parameters` minus `step` on the `free` ones, within the bounds."""
    items = parameters.size // 2
    moved = parameters.copy()
    moved[free] -= step
    moved[:items] = np.clip(moved[:items], -DISCRIMINATION_BOUND, DISCRIMINATION_BOUND)
    moved[items:] = np.clip(moved[items:], -INTERCEPT_BOUND, INTERCEPT_BOUND)
    return moved


def _scattered(matrix: FloatArray, kept: npt.NDArray[np.bool_]) -> FloatArray:
    """`matrix` (kept x kept) in the rows and columns `kept` of a NaN matrix, or `matrix`
    itself where every one is kept (at thousands of challenges a copy is hundreds of MB)."""
    if kept.all():
        return matrix
    scattered = np.full((kept.size, kept.size), np.nan)
    scattered[np.ix_(kept, kept)] = matrix
    return scattered


def _at_bound(parameters: FloatArray, items: int) -> npt.NDArray[np.bool_]:
    """Which items have a or d at its bound."""
    return np.asarray(
        (np.abs(parameters[:items]) >= DISCRIMINATION_BOUND - 1e-6)
        | (np.abs(parameters[items:]) >= INTERCEPT_BOUND - 1e-6)
    )


def _gradient_converged(parameters: FloatArray, gradient: FloatArray, items: int) -> bool:
    """Whether the gradient of the items off their bounds is below GRADIENT_TOLERANCE."""
    inside = ~_at_bound(parameters, items)
    free_gradient = np.concatenate([gradient[:items][inside], gradient[items:][inside]])
    return free_gradient.size == 0 or float(np.max(np.abs(free_gradient))) < GRADIENT_TOLERANCE


def _screen_items(
    trials: FloatArray, successes: FloatArray
) -> tuple[npt.NDArray[np.bool_], ObjectArray]:
    """Which items can be fitted, and why not for the others."""
    item_trials = trials.sum(axis=0)
    item_successes = successes.sum(axis=0)
    item_agents = (trials > 0).sum(axis=0)
    reason = np.full(trials.shape[1], None, dtype=object)
    reason[item_agents < 2] = "attempted by fewer than two agents"
    reason[(item_trials > 0) & (item_successes == item_trials)] = "every scored attempt passes"
    reason[(item_trials > 0) & (item_successes == 0)] = "every scored attempt fails"
    reason[item_trials == 0] = "no scored attempts"
    return np.asarray([r is None for r in reason]), reason


def fit_2pl(
    agent_codes: npt.ArrayLike,
    item_codes: npt.ArrayLike,
    trials: npt.ArrayLike,
    successes: npt.ArrayLike,
    agents: int,
    items: int,
) -> IrtFit:
    """Fit a 2PL model by marginal maximum likelihood on binomial (agent, item) counts."""
    agent_codes = np.asarray(agent_codes, dtype=np.int64)
    item_codes = np.asarray(item_codes, dtype=np.int64)
    trial_counts = np.asarray(trials, dtype=np.int64)
    success_counts = np.asarray(successes, dtype=np.int64)
    if not (agent_codes.shape == item_codes.shape == trial_counts.shape == success_counts.shape):
        raise ValueError("agent_codes, item_codes, trials and successes must have one shape")
    if (
        np.any(trial_counts < 0)
        or np.any(success_counts < 0)
        or np.any(success_counts > trial_counts)
    ):
        raise ValueError("need 0 <= successes <= trials")
    if agent_codes.size and (
        agent_codes.min() < 0
        or agent_codes.max() >= agents
        or item_codes.min() < 0
        or item_codes.max() >= items
    ):
        raise ValueError("agent or item code out of range")

    n, k = _dense_counts(agent_codes, item_codes, trial_counts, success_counts, agents, items)
    fit = _Fit(n, k)
    return fit.run()


class _Fit:
    """One calibration: screening, optimisation with grid refinement, information, output."""

    def __init__(self, trials: FloatArray, successes: FloatArray) -> None:
        self.trials, self.successes = trials, successes
        agents, items = trials.shape
        self.agents, self.items = agents, items
        self.free_items, self.item_reason = _screen_items(trials, successes)
        self.agent_in_fit = trials[:, self.free_items].sum(axis=1) > 0
        self.nan_items = np.full(items, np.nan)
        self.nan_agents = np.full(agents, np.nan)

    def _statuses(self, reason: ObjectArray, status_if_reason: str) -> ObjectArray:
        """A status per row: `status_if_reason` where a reason is given, else 'ok'."""
        return np.asarray(
            [STATUS_OK if r is None else status_if_reason for r in reason], dtype=object
        )

    def _agent_reasons(self) -> ObjectArray:
        """Why an agent has no ability (None when it has one)."""
        reason = np.full(self.agents, None, dtype=object)
        reason[~self.agent_in_fit] = "no scored attempts on an estimable challenge"
        return reason

    def _empty(self, message: str, free_item_status: str) -> IrtFit:
        """A result without estimates: `message` says why for the items that were fitted."""
        item_reason = self.item_reason.copy()
        item_reason[self.free_items] = message
        item_status = self._statuses(item_reason, STATUS_NOT_ESTIMABLE)
        item_status[self.free_items] = free_item_status
        agent_reason = np.where(
            self.agent_in_fit, message, "no scored attempts on an estimable challenge"
        ).astype(object)
        return self._result(
            estimates=None,
            item_reason=item_reason,
            item_status=item_status,
            agent_reason=agent_reason,
            agent_status=self._statuses(agent_reason, STATUS_NOT_ESTIMABLE),
            converged=False,
            message=message,
            log_likelihood=None,
            grid_points=0,
        )

    def run(self) -> IrtFit:
        """Fit, refine the grid, compute the information, orient, and scatter back."""
        if self.agent_in_fit.sum() < 2 or not self.free_items.any():
            message = (
                "fewer than two agents with attempts on estimable challenges"
                if self.free_items.any()
                else "no challenge with both passing and failing attempts by two or more agents"
            )
            return self._empty(message, STATUS_NOT_ESTIMABLE)

        n = self.trials[np.ix_(self.agent_in_fit, self.free_items)]
        k = self.successes[np.ix_(self.agent_in_fit, self.free_items)]
        free = int(self.free_items.sum())
        pass_rate = k.sum(axis=0) / n.sum(axis=0)
        start = np.concatenate([np.ones(free), special.logit(pass_rate)])
        bounds = [(-DISCRIMINATION_BOUND, DISCRIMINATION_BOUND)] * free + [
            (-INTERCEPT_BOUND, INTERCEPT_BOUND)
        ] * free

        # A coarse grid shared by all agents first. When some posterior is narrower than it
        # resolves, Newton steps follow in which every agent has its own grid around its
        # current posterior mode, so the cost grows with (agent, challenge) cells, never
        # with the attempts behind them.
        # When the posteriors at the start are already narrower than the shared grid
        # resolves, the Newton steps on per-agent grids start from alternating modes and
        # item fits; L-BFGS-B on the shared grid brings the parameters there only when
        # those steps do not reach the optimum (and is the fit when the grid serves).
        theta, log_weights = quadrature_grid(START_SPACING)
        mode, scale = posterior_modes(start[:free], start[free:], n, k, np.zeros(len(n)))
        if not _shared_grid_resolves(scale):
            rounds = start
            for _ in range(START_ROUNDS):
                rounds = item_fits_given_abilities(standardised(mode, scale), n, k, rounds)
                mode, scale = posterior_modes(rounds[:free], rounds[free:], n, k, mode)
            if not _shared_grid_resolves(scale):
                optimum = _adaptive_newton(rounds, n, k, mode)
                if _gradient_converged(optimum.parameters, optimum.gradient, free):
                    return self._finish(optimum, n, k, free, "Newton steps on per-agent grids")

        def shared_grid_fit(x0: FloatArray, options: dict[str, float]) -> optimize.OptimizeResult:
            """L-BFGS-B on the shared grid from `x0`."""
            return optimize.minimize(
                negative_log_likelihood,
                x0,
                args=(n, k, theta, log_weights),
                jac=True,
                method="L-BFGS-B",
                bounds=bounds,
                options=options,
            )

        options = TIGHT_LBFGS_OPTIONS if _shared_grid_resolves(scale) else LOOSE_LBFGS_OPTIONS
        result = shared_grid_fit(start, options)
        mode, scale = posterior_modes(result.x[:free], result.x[free:], n, k, np.zeros(len(n)))
        if _shared_grid_resolves(scale) and options is LOOSE_LBFGS_OPTIONS:
            # the shared grid serves after all: its optimum is the fit
            result = shared_grid_fit(result.x, TIGHT_LBFGS_OPTIONS)
            mode, scale = posterior_modes(result.x[:free], result.x[free:], n, k, np.zeros(len(n)))
        if _shared_grid_resolves(scale):
            optimum = _evaluated(result.x, n, k, theta, log_weights)
        else:
            optimum = _adaptive_newton(result.x, n, k, mode)
        # On per-agent grids the Newton steps, not L-BFGS-B on the shared grid, decide.
        if not (
            (bool(result.success) and optimum.theta.ndim == 1)
            or _gradient_converged(optimum.parameters, optimum.gradient, free)
        ):
            return self._empty(
                f"the optimiser did not converge: {result.message}", STATUS_NOT_CONVERGED
            )
        return self._finish(optimum, n, k, free, str(result.message))

    def _finish(
        self, optimum: _Optimum, n: FloatArray, k: FloatArray, free: int, message: str
    ) -> IrtFit:
        """Information, standard errors, orientation and abilities at the optimum."""
        parameters, q = optimum.parameters, optimum.q
        a, d = parameters[:free].copy(), parameters[free:].copy()
        at_bound = _at_bound(parameters, free)
        information = optimum.information
        if information is None:
            information = _information(q, n, k, ~at_bound)
        try:
            parts = information.covariance_parts()
        except linalg.LinAlgError:
            return self._empty(
                "the information matrix is not positive definite (weakly identified)",
                STATUS_NOT_CONVERGED,
            )

        # Orientation: the reflection (theta, a) -> (-theta, -a) leaves the likelihood alone;
        # choose the one where abilities grow with passes (attempt-weighted mean a > 0).
        # It changes the sign of cov(a_i, d_i) alone.
        sign = 1.0 if float(n.sum(axis=0) @ a) >= 0 else -1.0
        a *= sign
        inside = ~at_bound
        a_covariance = _scattered(parts.discrimination, inside)
        var_a, var_d, cov_ad = np.full(free, np.nan), np.full(free, np.nan), np.full(free, np.nan)
        var_a[inside] = np.diag(parts.discrimination)
        var_d[inside] = parts.intercept_variance
        cov_ad[inside] = sign * parts.cross
        mean_theta = q.mean_theta
        mean_square = np.einsum("jq,jq->j", q.posterior, q.theta**2)
        ability = sign * mean_theta
        ability_sd = np.sqrt(np.maximum(mean_square - mean_theta**2, 0.0))

        with np.errstate(divide="ignore", invalid="ignore"):
            difficulty = -d / a
            var_b = (var_d + difficulty**2 * var_a + 2 * difficulty * cov_ad) / a**2
        undefined = ~np.isfinite(difficulty)  # a == 0: no ability gives p = 1/2 ... or all do
        difficulty[undefined], var_b[undefined] = np.nan, np.nan
        item_reason = self.item_reason.copy()
        reasons = np.full(free, None, dtype=object)
        reasons[at_bound] = (
            "estimate at the bound (|a| = 8 or |d| = 25): outcomes are nearly separated by ability"
        )
        item_reason[self.free_items] = reasons
        item_status = self._statuses(item_reason, STATUS_NOT_ESTIMABLE)
        item_status[np.flatnonzero(self.free_items)[at_bound]] = STATUS_BOUNDARY

        estimates = {
            "a": a,
            "a_se": np.sqrt(var_a),
            "d": d,
            "b": difficulty,
            "b_se": np.sqrt(var_b),
            "ability": ability,
            "ability_se": ability_sd,
            "a_covariance": a_covariance,
        }
        agent_reason = self._agent_reasons()
        return self._result(
            estimates=estimates,
            item_reason=item_reason,
            item_status=item_status,
            agent_reason=agent_reason,
            agent_status=self._statuses(agent_reason, STATUS_NOT_ESTIMABLE),
            converged=True,
            message=message,
            log_likelihood=-optimum.value,
            grid_points=int(optimum.theta.shape[-1]),
            quadrature=(optimum.theta, optimum.log_weights),
        )

    def _result(
        self,
        estimates: dict[str, FloatArray] | None,
        item_reason: ObjectArray,
        item_status: ObjectArray,
        agent_reason: ObjectArray,
        agent_status: ObjectArray,
        converged: bool,
        message: str,
        log_likelihood: float | None,
        grid_points: int,
        quadrature: tuple[FloatArray, FloatArray] | None = None,
    ) -> IrtFit:
        """Scatter the fitted parameters back to every item and agent (NaN where not fitted)."""
        item_values = {name: self.nan_items.copy() for name in ("a", "a_se", "d", "b", "b_se")}
        agent_values = {name: self.nan_agents.copy() for name in ("ability", "ability_se")}
        covariance = (
            np.full((self.items, self.items), np.nan)
            if estimates is None
            else _scattered(estimates["a_covariance"], self.free_items)
        )
        if estimates is not None:
            for name in item_values:
                item_values[name][self.free_items] = estimates[name]
            for name in agent_values:
                agent_values[name][self.agent_in_fit] = estimates[name]
            boundary = item_status == STATUS_BOUNDARY
            for name in ("a_se", "b_se"):
                item_values[name][boundary] = np.nan
        return IrtFit(
            discrimination=item_values["a"],
            discrimination_se=item_values["a_se"],
            intercept=item_values["d"],
            difficulty=item_values["b"],
            difficulty_se=item_values["b_se"],
            item_trials=self.trials.sum(axis=0).astype(np.int64),
            item_successes=self.successes.sum(axis=0).astype(np.int64),
            item_agents=(self.trials > 0).sum(axis=0).astype(np.int64),
            item_status=item_status,
            item_reason=item_reason,
            ability=agent_values["ability"],
            ability_se=agent_values["ability_se"],
            agent_trials=self.trials.sum(axis=1).astype(np.int64),
            agent_successes=self.successes.sum(axis=1).astype(np.int64),
            agent_status=agent_status,
            agent_reason=agent_reason,
            discrimination_covariance=covariance,
            converged=converged,
            message=message,
            log_likelihood=log_likelihood,
            grid_points=grid_points,
            quadrature=quadrature,
        )


FRAME_COLUMNS: dict[str, str] = {
    "entity_kind": "string",
    "entity_id": "string",
    "attempts": "int64",
    "passes": "int64",
    "counterparts": "int64",
    "discrimination": "float64",
    "discrimination_se": "float64",
    "discrimination_ci_low": "float64",
    "discrimination_ci_high": "float64",
    "difficulty": "float64",
    "difficulty_se": "float64",
    "difficulty_ci_low": "float64",
    "difficulty_ci_high": "float64",
    "ability": "float64",
    "ability_se": "float64",
    "fit_status": "string",
    "fit_reason": "string",
    "grid_points": "int64",
    "log_likelihood": "float64",
}


@dataclass(frozen=True)
class Contrast:
    """A linear combination sum_i w_i a_i of discriminations, with its standard error."""

    estimate: float | None
    standard_error: float | None
    status: str
    reason: str | None


def discrimination_contrast(
    fit: IrtFit, weights: npt.ArrayLike, item_labels: npt.ArrayLike | None = None
) -> Contrast:
    """w'a with standard error sqrt(w' Cov(a) w) from the joint covariance of the fit.

    Differences between challenges of one fit are far more precise than each a alone: the
    a's share the uncertainty of the ability scale (a few dozen agents pin down the spread
    of a standard normal population only roughly), which cancels in a contrast.
    """
    weights = np.asarray(weights, dtype=np.float64)
    labels = np.asarray(
        item_labels if item_labels is not None else np.arange(weights.size), dtype=object
    )
    involved = np.flatnonzero(weights != 0)
    unfitted = [i for i in involved if fit.item_status[i] != STATUS_OK]
    if involved.size == 0:
        return Contrast(None, None, STATUS_NOT_ESTIMABLE, "no challenge in the contrast")
    if unfitted:
        reasons = "; ".join(
            f"{labels[i]}: {fit.item_reason[i] or fit.item_status[i]}" for i in unfitted
        )
        return Contrast(None, None, STATUS_NOT_ESTIMABLE, reasons)
    w = weights[involved]
    covariance = fit.discrimination_covariance[np.ix_(involved, involved)]
    variance = float(w @ covariance @ w)
    estimate = float(w @ fit.discrimination[involved])
    return Contrast(estimate, float(np.sqrt(max(variance, 0.0))), STATUS_OK, None)


def _sorted_codes(column: Any, extra: Iterable[str] = ()) -> tuple[pd.Index, IntArray]:
    """The distinct ids of an arrow column (and `extra`) in sorted order, and each row's
    position among them (udfs.label_codes): in arrow, as an agent x challenge table has a
    million rows or more on many agents, not as Python strings. A NULL id is refused."""
    import pyarrow as pa

    from challenge_fairness.udfs import label_codes

    values = column.cast(pa.string())
    if values.null_count:
        raise ValueError("agent_id and challenge_id must not be NULL")
    codes, labels = label_codes(
        pa.chunked_array([*values.chunks, pa.array(list(extra), type=pa.string())])
    )
    return pd.Index(labels, dtype=object), codes[: len(values)]


def fit_2pl_frame(
    counts: pd.DataFrame | Any, alpha: float, contrasts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Fit the 2PL on (agent_id, challenge_id, attempts, passes) rows, a pandas frame or an
    arrow table (a build passes arrow: no Python string per row).

    One output row per challenge (entity_kind 'challenge'), per agent ('agent') and per
    contrast ('contrast': contrast_id, challenge_id, weight rows of `contrasts`, estimate
    sum of weight x a), with Wald (1 - alpha) intervals.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    from scipy import stats

    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    table = (
        pa.Table.from_pandas(counts, preserve_index=False)
        if isinstance(counts, pd.DataFrame)
        else counts
    )
    scored = pc.greater(table["attempts"], 0)
    if not pc.all(scored, skip_nulls=False).as_py():  # filtering copies every id: only if due
        table = table.filter(scored)
    if contrasts is None:
        contrasts = pd.DataFrame({"contrast_id": [], "challenge_id": [], "weight": []})
    agent_ids, agent_codes = _sorted_codes(table["agent_id"])
    item_ids, item_codes = _sorted_codes(table["challenge_id"], contrasts["challenge_id"])
    if len(item_ids) == 0:
        return pd.DataFrame({name: pd.Series([], dtype=t) for name, t in FRAME_COLUMNS.items()})
    fit = fit_2pl(
        agent_codes,
        item_codes,
        np.asarray(table["attempts"].to_numpy(), dtype=np.int64),
        np.asarray(table["passes"].to_numpy(), dtype=np.int64),
        len(agent_ids),
        len(item_ids),
    )
    z = float(stats.norm.ppf(1 - alpha / 2))
    items_per_agent = np.bincount(agent_codes, minlength=len(agent_ids))
    nan_items, nan_agents = np.full(len(item_ids), np.nan), np.full(len(agent_ids), np.nan)
    challenges = pd.DataFrame(
        {
            "entity_kind": "challenge",
            "entity_id": np.asarray(item_ids, dtype=object),
            "attempts": fit.item_trials,
            "passes": fit.item_successes,
            "counterparts": fit.item_agents,
            "discrimination": fit.discrimination,
            "discrimination_se": fit.discrimination_se,
            "difficulty": fit.difficulty,
            "difficulty_se": fit.difficulty_se,
            "ability": nan_items,
            "ability_se": nan_items,
            "fit_status": fit.item_status,
            "fit_reason": fit.item_reason,
        }
    )
    agents = pd.DataFrame(
        {
            "entity_kind": "agent",
            "entity_id": np.asarray(agent_ids, dtype=object),
            "attempts": fit.agent_trials,
            "passes": fit.agent_successes,
            "counterparts": items_per_agent,
            "discrimination": nan_agents,
            "discrimination_se": nan_agents,
            "difficulty": nan_agents,
            "difficulty_se": nan_agents,
            "ability": fit.ability,
            "ability_se": fit.ability_se,
            "fit_status": fit.agent_status,
            "fit_reason": fit.agent_reason,
        }
    )
    contrast_rows = []
    for contrast_id, rows in contrasts.groupby("contrast_id", sort=True):
        weights = np.zeros(len(item_ids))
        np.add.at(weights, item_ids.get_indexer(rows["challenge_id"]), rows["weight"].to_numpy())
        result = discrimination_contrast(fit, weights, item_ids)
        involved = weights != 0
        contrast_rows.append(
            {
                "entity_kind": "contrast",
                "entity_id": contrast_id,
                "attempts": int(fit.item_trials[involved].sum()),
                "passes": int(fit.item_successes[involved].sum()),
                "counterparts": int(involved.sum()),
                "discrimination": result.estimate,
                "discrimination_se": result.standard_error,
                "difficulty": None,
                "difficulty_se": None,
                "ability": None,
                "ability_se": None,
                "fit_status": result.status,
                "fit_reason": result.reason,
            }
        )
    frame = pd.concat(
        [challenges, agents, pd.DataFrame(contrast_rows, columns=challenges.columns)],
        ignore_index=True,
    )
    for name in ("discrimination", "difficulty"):
        estimate = frame[name].astype("float64")
        se = frame[f"{name}_se"].astype("float64")
        frame[f"{name}_ci_low"] = estimate - z * se
        frame[f"{name}_ci_high"] = estimate + z * se
    frame["grid_points"] = fit.grid_points
    frame["log_likelihood"] = np.nan if fit.log_likelihood is None else fit.log_likelihood
    return frame.astype(FRAME_COLUMNS)[list(FRAME_COLUMNS)]
