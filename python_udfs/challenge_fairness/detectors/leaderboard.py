"""Leaderboard impact: which ranks does a flagged bias move, by how much, how surely.

The leaderboard is computed from the compressed agent x challenge cells (scored attempts
and score sum per cell), never from attempts. An agent's score is, by `method`:

- ``challenge_mean``: the mean over its challenges of its mean score on each (every
  challenge weighted once, whatever the number of attempts);
- ``attempt_mean``: the mean over all its scored attempts.

Ranks are competition ranks (1 = highest score; tied agents share the best rank: 1, 2,
2, 4). Uncertainty comes from a seeded bootstrap over challenges: each resample draws the
challenges with replacement (multinomial multiplicities) and recomputes every agent's
score with those multiplicities as challenge weights. The rank interval is the percentile
interval of the agent's bootstrap ranks; its rank upper bound is 1 + the number of agents
significantly better (the percentile interval of their paired score difference lies
above 0), the convention of public leaderboards.

Two counterfactual leaderboards, on the same resamples (paired):

- ``without_flagged``: the flagged challenges removed;
- ``bias_adjusted``: on each flagged challenge, the flagged family's ability-adjusted
  effect (``adjustment`` of its agents' cells) subtracted from those agents' mean scores.

The rank change is counterfactual rank minus actual rank (positive: the agent falls once
the bias is taken out, i.e. the bias lifted it; negative: it rises). The change is
*beyond chance* when its paired percentile interval excludes 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from scipy import stats

from challenge_fairness.registry import UdfSpec
from challenge_fairness.stats import STATUS_NOT_COMPUTABLE, STATUS_OK
from challenge_fairness.udfs import flat_list, float_numpy, label_codes

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

METHODS = ("challenge_mean", "attempt_mean")
# Scores (and paired score differences) equal to this many decimals are equal. An agent's
# score is a mean of means computed from counts: one an ulp off an equal agent's (every
# agent scoring 30.03, from different numbers of attempts) would otherwise rank below it
# and count as a rank moved when a challenge is removed. The SQL orders by round(x, 9)
# for the same reason.
SCORE_DECIMALS = 9
STATUS_NOT_RANKED = "not_ranked"


def leaderboard_scores(
    attempts: npt.ArrayLike, score_sums: npt.ArrayLike, weights: npt.ArrayLike, method: str
) -> FloatArray:
    """Each agent's score from agent x challenge cells, with challenge weights.

    `attempts` and `score_sums` are (agents x challenges), 0 where the agent has no
    (eligible) cell; `weights` is (challenges,) or (resamples x challenges). Returns
    (agents,) or (resamples x agents); NaN where an agent has no weighted cell.
    """
    n = np.asarray(attempts, dtype=np.float64)
    s = np.asarray(score_sums, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if method == "challenge_mean":
        observed = (n > 0).astype(np.float64)
        means = np.divide(s, n, out=np.zeros_like(s), where=n > 0)
        numerator, denominator = w @ means.T, w @ observed.T
    elif method == "attempt_mean":
        numerator, denominator = w @ s.T, w @ n.T
    else:
        raise ValueError(f"unknown leaderboard method {method!r}; known: {METHODS}")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def competition_ranks(scores: npt.ArrayLike) -> FloatArray:
    """Competition ranks along the last axis: 1 = highest, ties (to SCORE_DECIMALS) share
    the best, NaN stays NaN."""
    x = np.round(np.asarray(scores, dtype=np.float64), SCORE_DECIMALS)
    ranks = stats.rankdata(-x, method="min", axis=-1, nan_policy="omit")
    return np.asarray(ranks, dtype=np.float64)


def bootstrap_weights(challenges: int, resamples: int, seed: int) -> FloatArray:
    """(resamples x challenges) multiplicities of challenges drawn with replacement."""
    rng = np.random.default_rng(seed)
    if challenges == 0:
        return np.zeros((resamples, 0))
    draws = rng.multinomial(challenges, np.full(challenges, 1.0 / challenges), size=resamples)
    return np.asarray(draws, dtype=np.float64)


def percentile_interval(samples: npt.ArrayLike, level: float) -> tuple[FloatArray, FloatArray]:
    """Per column, the percentile interval of the finite samples (rows), conservative on
    integers (lower end rounds down, upper end up); NaN where a column has none."""
    x = np.asarray(samples, dtype=np.float64)
    tail = (1.0 - level) / 2.0
    low = np.full(x.shape[1:], np.nan)
    high = np.full(x.shape[1:], np.nan)
    finite = np.isfinite(x)
    # Columns without a NaN take numpy's vectorised quantile (nanquantile loops over
    # columns in Python); it gives the same order statistics.
    for chosen, quantile in (
        (finite.all(axis=0), np.quantile),
        (finite.any(axis=0) & ~finite.all(axis=0), np.nanquantile),
    ):
        if np.any(chosen):
            columns = x[:, chosen]
            low[chosen] = quantile(columns, tail, axis=0, method="lower")
            high[chosen] = quantile(columns, 1.0 - tail, axis=0, method="higher")
    return low, high


def significantly_better_counts(resampled_scores: npt.ArrayLike, level: float) -> FloatArray:
    """Per agent, the number of other agents whose paired bootstrap score difference
    (theirs minus its) has a percentile interval entirely above 0 (to SCORE_DECIMALS);
    NaN for an agent without a score in any resample.

    Only the intervals' lower ends matter. Where both agents have a score in every
    resample, that end is the order statistic numpy's quantile (method 'lower') takes,
    read off one partition of each agent's contiguous row of differences: several times
    faster than np.quantile per column (0.5 s of a build at 144 agents and 1,000
    resamples), and the same values. The other pairs take percentile_interval."""
    x = np.asarray(resampled_scores, dtype=np.float64)
    resamples, agents = x.shape
    counts = np.full(agents, np.nan)
    if resamples == 0:
        return counts
    tail = (1.0 - level) / 2.0
    # numpy's own choice of order statistic: the quantile of the positions themselves
    k = int(np.quantile(np.arange(resamples), tail, method="lower"))
    rows = np.ascontiguousarray(x.T)  # agents x resamples
    scored = np.isfinite(rows)
    complete = np.all(scored, axis=1)
    for i in range(agents):
        if not scored[i].any():
            continue
        differences = rows - rows[i]
        low = np.full(agents, np.nan)
        exact = complete & complete[i]
        if exact.any():
            low[exact] = np.partition(differences[exact], k, axis=1)[:, k]
        if not exact.all():
            low[~exact], _ = percentile_interval(differences[~exact].T, level)
        low[i] = np.nan
        counts[i] = float(np.sum(np.round(low, SCORE_DECIMALS) > 0))
    return counts


@dataclass(frozen=True)
class AgentStanding:
    """One agent's place on the actual and the counterfactual leaderboards."""

    agent_id: str
    challenges: int
    score: float | None
    rank: int | None
    rank_ci_low: int | None
    rank_ci_high: int | None
    rank_upper_bound: int | None
    score_without_flagged: float | None
    rank_without_flagged: int | None
    rank_change_without_flagged: int | None
    change_without_flagged_ci_low: int | None
    change_without_flagged_ci_high: int | None
    is_change_without_flagged_beyond_chance: bool | None
    score_bias_adjusted: float | None
    rank_bias_adjusted: int | None
    rank_change_bias_adjusted: int | None
    change_bias_adjusted_ci_low: int | None
    change_bias_adjusted_ci_high: int | None
    is_change_bias_adjusted_beyond_chance: bool | None
    status: str
    reason: str | None


@dataclass(frozen=True)
class ChallengeImpact:
    """What taking one flagged challenge out (or adjusting it alone) does to the ranks."""

    challenge_id: str
    agents_moved_removed: int | None
    largest_move_removed: int | None
    agents_moved_adjusted: int | None
    largest_move_adjusted: int | None
    agents_rising: int | None
    agents_falling: int | None
    rising_agents: str | None
    falling_agents: str | None
    status: str
    reason: str | None


@dataclass(frozen=True)
class LeaderboardImpact:
    """The leaderboard's status, one standing per agent, one impact per flagged challenge."""

    status: str
    reason: str | None
    ranked_agents: int
    challenges: int
    flagged_challenges: int
    agents: tuple[AgentStanding, ...]
    challenge_impacts: tuple[ChallengeImpact, ...]


def _float(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _int(value: float) -> int | None:
    return int(round(float(value))) if np.isfinite(value) else None


def _moves(ranks: FloatArray, counterfactual: FloatArray) -> FloatArray:
    """Counterfactual rank minus rank (NaN where either is missing)."""
    return counterfactual - ranks


def _moved_list(agent_ids: Sequence[str], moves: FloatArray, rising: bool) -> str | None:
    """'agent (+2), other (+1)': the agents that rise (or fall), largest move first."""
    chosen = np.flatnonzero(moves < 0) if rising else np.flatnonzero(moves > 0)
    if chosen.size == 0:
        return None
    order = sorted((int(i) for i in chosen), key=lambda i: (-abs(moves[i]), agent_ids[i]))
    sign = "+" if rising else "-"
    return ", ".join(f"{agent_ids[i]} ({sign}{int(abs(moves[i]))})" for i in order)


def leaderboard_impact(
    agent_ids: Sequence[str],
    challenge_ids: Sequence[str],
    attempts: npt.ArrayLike,
    score_sums: npt.ArrayLike,
    adjustments: npt.ArrayLike,
    is_flagged: npt.ArrayLike,
    method: str = "challenge_mean",
    min_challenges: int = 1,
    min_cell_attempts: int = 1,
    level: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> LeaderboardImpact:
    """The leaderboard, its bootstrap rank intervals and the two counterfactuals.

    Inputs are one element per (agent, challenge) cell: scored attempts, score sum, the
    points to subtract from the cell's mean score in the bias-adjusted counterfactual (0
    when none) and whether the challenge is flagged (any cell true flags the challenge).
    Cells with fewer than `min_cell_attempts` attempts are left out; agents with fewer
    than `min_challenges` remaining cells are listed unranked ('not_ranked', reason).
    Fewer than two ranked agents or two challenges: 'not_computable' (no ranks at all).
    """
    if method not in METHODS:
        raise ValueError(f"unknown leaderboard method {method!r}; known: {METHODS}")
    if not 0 < level < 1:
        raise ValueError("level must be in (0, 1)")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    agents_in = np.asarray(agent_ids, dtype=object)
    challenges_in = np.asarray(challenge_ids, dtype=object)
    n_in = np.nan_to_num(np.asarray(attempts, dtype=np.float64), nan=0.0)
    s_in = np.nan_to_num(np.asarray(score_sums, dtype=np.float64), nan=0.0)
    adjust_in = np.nan_to_num(np.asarray(adjustments, dtype=np.float64), nan=0.0)
    flagged_in = np.asarray(is_flagged, dtype=bool)
    if not (
        agents_in.shape
        == challenges_in.shape
        == n_in.shape
        == s_in.shape
        == adjust_in.shape
        == flagged_in.shape
    ):
        raise ValueError("every cell argument must have one element per cell")

    agent_list, agent_codes = np.unique(agents_in.astype(str), return_inverse=True)
    flagged_set = {str(c) for c in challenges_in[flagged_in]}
    eligible = n_in >= max(min_cell_attempts, 1)
    cell_challenges = challenges_in[eligible].astype(str)
    challenge_list, challenge_codes = np.unique(cell_challenges, return_inverse=True)
    shape = (agent_list.size, challenge_list.size)
    n = np.zeros(shape)
    s = np.zeros(shape)
    adjust = np.zeros(shape)
    rows, columns = agent_codes[eligible], challenge_codes
    np.add.at(n, (rows, columns), n_in[eligible])
    np.add.at(s, (rows, columns), s_in[eligible])
    np.add.at(adjust, (rows, columns), adjust_in[eligible] * n_in[eligible])
    adjust = np.divide(adjust, n, out=np.zeros_like(adjust), where=n > 0)
    per_agent = (n > 0).sum(axis=1)
    ranked = per_agent >= max(min_challenges, 1)
    n[~ranked] = 0.0
    s[~ranked] = 0.0
    used = n.sum(axis=0) > 0
    n, s, adjust = n[:, used], s[:, used], adjust[:, used]
    challenge_list = challenge_list[used]
    flagged = np.asarray([c in flagged_set for c in challenge_list], dtype=bool)
    s_adjusted = s - n * adjust * flagged[None, :]
    ids = [str(a) for a in agent_list]

    def unranked(i: int, status: str, reason: str) -> AgentStanding:
        empty: dict[str, Any] = {field.name: None for field in fields(AgentStanding)}
        empty.update(agent_id=ids[i], challenges=int(per_agent[i]), status=status, reason=reason)
        return AgentStanding(**empty)

    def not_computable(reason: str) -> LeaderboardImpact:
        agents = tuple(
            unranked(i, STATUS_NOT_COMPUTABLE, reason)
            if ranked[i]
            else unranked(i, STATUS_NOT_RANKED, _unranked_reason(int(per_agent[i])))
            for i in range(agent_list.size)
        )
        blank: dict[str, Any] = {field.name: None for field in fields(ChallengeImpact)}
        impacts = tuple(
            ChallengeImpact(
                **{**blank, "challenge_id": c, "status": STATUS_NOT_COMPUTABLE, "reason": reason}
            )
            for c in sorted(flagged_set)
        )
        return LeaderboardImpact(
            STATUS_NOT_COMPUTABLE,
            reason,
            int(ranked.sum()),
            int(challenge_list.size),
            len(flagged_set),
            agents,
            impacts,
        )

    def _unranked_reason(count: int) -> str:
        return (
            f"{count} challenge(s) with at least {min_cell_attempts} scored attempt(s),"
            f" fewer than leaderboard_min_challenges = {min_challenges}"
        )

    if int(ranked.sum()) < 2:
        return not_computable("fewer than two agents meet the leaderboard minimums")
    if challenge_list.size < 2:
        return not_computable("fewer than two challenges: no bootstrap over challenges")

    ones = np.ones(challenge_list.size)
    kept = 1.0 - flagged
    score = leaderboard_scores(n, s, ones, method)
    score[~ranked] = np.nan
    score_removed = leaderboard_scores(n, s, ones * kept, method)
    score_removed[~ranked] = np.nan
    score_adjusted = leaderboard_scores(n, s_adjusted, ones, method)
    score_adjusted[~ranked] = np.nan
    rank = competition_ranks(score)
    rank_removed = competition_ranks(score_removed)
    rank_adjusted = competition_ranks(score_adjusted)

    weights = bootstrap_weights(challenge_list.size, resamples, seed)
    boot = leaderboard_scores(n, s, weights, method)
    boot[:, ~ranked] = np.nan
    boot_removed = leaderboard_scores(n, s, weights * kept[None, :], method)
    boot_removed[:, ~ranked] = np.nan
    boot_adjusted = leaderboard_scores(n, s_adjusted, weights, method)
    boot_adjusted[:, ~ranked] = np.nan
    boot_rank = competition_ranks(boot)
    rank_low, rank_high = percentile_interval(boot_rank, level)
    better = significantly_better_counts(boot, level)
    change_removed_low, change_removed_high = percentile_interval(
        competition_ranks(boot_removed) - boot_rank, level
    )
    change_adjusted_low, change_adjusted_high = percentile_interval(
        competition_ranks(boot_adjusted) - boot_rank, level
    )

    def beyond(low: float, high: float) -> bool | None:
        if not (np.isfinite(low) and np.isfinite(high)):
            return None
        return bool(low > 0 or high < 0)

    standings = []
    for i in range(agent_list.size):
        if not ranked[i]:
            standings.append(unranked(i, STATUS_NOT_RANKED, _unranked_reason(int(per_agent[i]))))
            continue
        reason = None
        if not np.isfinite(score_removed[i]):
            reason = "every challenge of the agent is flagged: no rank without them"
        standings.append(
            AgentStanding(
                ids[i],
                int(per_agent[i]),
                _float(score[i]),
                _int(rank[i]),
                _int(rank_low[i]),
                _int(rank_high[i]),
                _int(1.0 + better[i]),
                _float(score_removed[i]),
                _int(rank_removed[i]),
                _int(rank_removed[i] - rank[i]),
                _int(change_removed_low[i]),
                _int(change_removed_high[i]),
                beyond(change_removed_low[i], change_removed_high[i]),
                _float(score_adjusted[i]),
                _int(rank_adjusted[i]),
                _int(rank_adjusted[i] - rank[i]),
                _int(change_adjusted_low[i]),
                _int(change_adjusted_high[i]),
                beyond(change_adjusted_low[i], change_adjusted_high[i]),
                STATUS_OK,
                reason,
            )
        )

    impacts = []
    position = {c: j for j, c in enumerate(challenge_list)}
    for challenge in sorted(str(c) for c in flagged_set):
        if challenge not in position:
            impacts.append(
                ChallengeImpact(
                    challenge,
                    0,
                    0,
                    0,
                    0,
                    0,
                    0,
                    None,
                    None,
                    STATUS_OK,
                    "no cell of the challenge meets the leaderboard minimums",
                )
            )
            continue
        j = position[challenge]
        only = np.zeros(challenge_list.size)
        only[j] = 1.0
        removed = competition_ranks(
            np.where(ranked, leaderboard_scores(n, s, ones - only, method), np.nan)
        )
        adjusted_alone = s - n * adjust * only[None, :]
        adjusted = competition_ranks(
            np.where(ranked, leaderboard_scores(n, adjusted_alone, ones, method), np.nan)
        )
        move_removed = _moves(rank, removed)
        move_adjusted = _moves(rank, adjusted)
        finite_removed = move_removed[np.isfinite(move_removed)]
        finite_adjusted = move_adjusted[np.isfinite(move_adjusted)]
        impacts.append(
            ChallengeImpact(
                challenge,
                int(np.sum(finite_removed != 0)),
                int(np.max(np.abs(finite_removed), initial=0)),
                int(np.sum(finite_adjusted != 0)),
                int(np.max(np.abs(finite_adjusted), initial=0)),
                int(np.sum(finite_adjusted < 0)),
                int(np.sum(finite_adjusted > 0)),
                _moved_list(ids, move_adjusted, rising=True),
                _moved_list(ids, move_adjusted, rising=False),
                STATUS_OK,
                None,
            )
        )
    return LeaderboardImpact(
        STATUS_OK,
        None,
        int(ranked.sum()),
        int(challenge_list.size),
        len(flagged_set),
        tuple(standings),
        tuple(impacts),
    )


# --- arrow adapter ------------------------------------------------------------------

AGENT_STANDING_TYPE = pa.struct(
    [
        ("agent_id", pa.string()),
        ("challenges", pa.int64()),
        ("score", pa.float64()),
        ("rank", pa.int64()),
        ("rank_ci_low", pa.int64()),
        ("rank_ci_high", pa.int64()),
        ("rank_upper_bound", pa.int64()),
        ("score_without_flagged", pa.float64()),
        ("rank_without_flagged", pa.int64()),
        ("rank_change_without_flagged", pa.int64()),
        ("change_without_flagged_ci_low", pa.int64()),
        ("change_without_flagged_ci_high", pa.int64()),
        ("is_change_without_flagged_beyond_chance", pa.bool_()),
        ("score_bias_adjusted", pa.float64()),
        ("rank_bias_adjusted", pa.int64()),
        ("rank_change_bias_adjusted", pa.int64()),
        ("change_bias_adjusted_ci_low", pa.int64()),
        ("change_bias_adjusted_ci_high", pa.int64()),
        ("is_change_bias_adjusted_beyond_chance", pa.bool_()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)
CHALLENGE_IMPACT_TYPE = pa.struct(
    [
        ("challenge_id", pa.string()),
        ("agents_moved_removed", pa.int64()),
        ("largest_move_removed", pa.int64()),
        ("agents_moved_adjusted", pa.int64()),
        ("largest_move_adjusted", pa.int64()),
        ("agents_rising", pa.int64()),
        ("agents_falling", pa.int64()),
        ("rising_agents", pa.string()),
        ("falling_agents", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
    ]
)
LEADERBOARD_IMPACT_TYPE = pa.struct(
    [
        ("status", pa.string()),
        ("reason", pa.string()),
        ("ranked_agents", pa.int64()),
        ("challenges", pa.int64()),
        ("flagged_challenges", pa.int64()),
        ("agents", pa.list_(AGENT_STANDING_TYPE)),
        ("challenge_impacts", pa.list_(CHALLENGE_IMPACT_TYPE)),
    ]
)


def _scalar(column: pa.ChunkedArray, row: int) -> object:
    return column.combine_chunks()[row].as_py()


def leaderboard_impact_udf(
    agent_ids: pa.ChunkedArray,
    challenge_ids: pa.ChunkedArray,
    attempts: pa.ChunkedArray,
    score_sums: pa.ChunkedArray,
    adjustments: pa.ChunkedArray,
    is_flagged: pa.ChunkedArray,
    method: pa.ChunkedArray,
    min_challenges: pa.ChunkedArray,
    min_cell_attempts: pa.ChunkedArray,
    level: pa.ChunkedArray,
    resamples: pa.ChunkedArray,
    seed: pa.ChunkedArray,
) -> pa.StructArray:
    """Arrow adapter of leaderboard_impact: one leaderboard per SQL row (NULL lists: NULL).

    Agents and challenges are coded by label (sorted), never by their order in the batch.
    """
    flats = [flat_list(column) for column in (agent_ids, challenge_ids, attempts, score_sums)]
    flat_adjust, adjust_offsets, adjust_null = flat_list(adjustments)
    flat_flagged, flagged_offsets, flagged_null = flat_list(is_flagged)
    offsets = flats[0][1]
    for _, other, _ in [*flats[1:]]:
        if not np.array_equal(offsets, other):
            raise ValueError("the cell lists of a row differ in length")
    if not (np.array_equal(offsets, adjust_offsets) and np.array_equal(offsets, flagged_offsets)):
        raise ValueError("the cell lists of a row differ in length")
    agent_codes, agent_labels = label_codes(flats[0][0])
    challenge_codes, challenge_labels = label_codes(flats[1][0])
    n = float_numpy(flats[2][0])
    s = float_numpy(flats[3][0])
    adjust = float_numpy(flat_adjust)
    flagged = np.asarray(
        pc.fill_null(flat_flagged, False).to_numpy(zero_copy_only=False), dtype=bool
    )
    null_rows = np.logical_or.reduce([flats[k][2] for k in range(4)] + [adjust_null, flagged_null])
    results: list[dict[str, object] | None] = []
    for row in range(len(offsets) - 1):
        parameters = [
            _scalar(column, row)
            for column in (method, min_challenges, min_cell_attempts, level, resamples, seed)
        ]
        if null_rows[row] or any(value is None for value in parameters):
            results.append(None)
            continue
        start, stop = offsets[row], offsets[row + 1]
        result = leaderboard_impact(
            agent_labels[agent_codes[start:stop]],
            challenge_labels[challenge_codes[start:stop]],
            n[start:stop],
            s[start:stop],
            adjust[start:stop],
            flagged[start:stop],
            method=str(parameters[0]),
            min_challenges=int(parameters[1]),  # type: ignore[call-overload]
            min_cell_attempts=int(parameters[2]),  # type: ignore[call-overload]
            level=float(parameters[3]),  # type: ignore[arg-type]
            resamples=int(parameters[4]),  # type: ignore[call-overload]
            seed=int(parameters[5]),  # type: ignore[call-overload]
        )
        results.append(
            {
                "status": result.status,
                "reason": result.reason,
                "ranked_agents": result.ranked_agents,
                "challenges": result.challenges,
                "flagged_challenges": result.flagged_challenges,
                "agents": [vars(agent) for agent in result.agents],
                "challenge_impacts": [vars(impact) for impact in result.challenge_impacts],
            }
        )
    return pa.array(results, type=LEADERBOARD_IMPACT_TYPE)


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec(
        "cf_leaderboard_impact",
        leaderboard_impact_udf,
        (
            "VARCHAR[]",
            "VARCHAR[]",
            "BIGINT[]",
            "DOUBLE[]",
            "DOUBLE[]",
            "BOOLEAN[]",
            "VARCHAR",
            "BIGINT",
            "BIGINT",
            "DOUBLE",
            "BIGINT",
            "BIGINT",
        ),
        LEADERBOARD_IMPACT_TYPE,
    ),
)
