"""Leaderboard impact statistics (challenge_fairness.detectors.leaderboard) against
independent loop/numpy computations, degenerate input, and the UDF on DuckDB."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from challenge_fairness.detectors import leaderboard as lb
from challenge_fairness.registry import register_udfs
from hypothesis import given, settings
from hypothesis import strategies as st


def _platform(
    agents: int, challenges: int, seed: int, missing: float = 0.0, skill_step: float = 2.0
) -> dict[str, np.ndarray]:
    """Cells of a small platform: agent skill in steps, noise, some cells missing."""
    rng = np.random.default_rng(seed)
    rows = []
    for a in range(agents):
        for c in range(challenges):
            if rng.random() < missing:
                continue
            n = int(rng.integers(1, 8))
            mean = 50 + skill_step * a + rng.normal(0, 8)
            rows.append((f"a{a:02d}", f"c{c:03d}", n, mean * n))
    return {
        "agent_ids": np.asarray([row[0] for row in rows], dtype=object),
        "challenge_ids": np.asarray([row[1] for row in rows], dtype=object),
        "attempts": np.asarray([row[2] for row in rows], dtype=float),
        "score_sums": np.asarray([row[3] for row in rows], dtype=float),
        "adjustments": np.zeros(len(rows)),
        "is_flagged": np.zeros(len(rows), dtype=bool),
    }


def _loop_scores(cells: dict[str, np.ndarray], weights: dict[str, float], method: str) -> dict:
    """Independent: each agent's score by plain loops over its cells."""
    out: dict[str, float] = {}
    for agent in sorted(set(cells["agent_ids"])):
        num = den = 0.0
        for a, c, n, s in zip(
            cells["agent_ids"],
            cells["challenge_ids"],
            cells["attempts"],
            cells["score_sums"],
            strict=True,
        ):
            if a != agent or n <= 0:
                continue
            w = weights.get(c, 0.0)
            if method == "challenge_mean":
                num += w * s / n
                den += w
            else:
                num += w * s
                den += w * n
        out[agent] = num / den if den > 0 else float("nan")
    return out


def _loop_ranks(scores: dict[str, float]) -> dict[str, float]:
    """Independent competition ranks: 1 + the number of strictly higher scores."""
    finite = [v for v in scores.values() if np.isfinite(v)]
    return {
        k: (1 + sum(other > v for other in finite)) if np.isfinite(v) else float("nan")
        for k, v in scores.items()
    }


@pytest.mark.parametrize("method", lb.METHODS)
def test_scores_and_ranks_match_loops(method: str) -> None:
    cells = _platform(7, 25, seed=1, missing=0.2)
    result = lb.leaderboard_impact(**cells, method=method, resamples=50, seed=1)
    expected = _loop_scores(cells, {c: 1.0 for c in set(cells["challenge_ids"])}, method)
    ranks = _loop_ranks(expected)
    assert result.status == "ok"
    for agent in result.agents:
        assert agent.score == pytest.approx(expected[agent.agent_id], rel=1e-12)
        assert agent.rank == ranks[agent.agent_id]
        assert agent.rank_change_without_flagged == 0
        assert agent.is_change_bias_adjusted_beyond_chance is False


@pytest.mark.parametrize("method", lb.METHODS)
def test_bootstrap_interval_matches_independent_resampling(method: str) -> None:
    cells = _platform(6, 20, seed=2, missing=0.1)
    level, resamples, seed = 0.9, 200, 11
    result = lb.leaderboard_impact(
        **cells, method=method, level=level, resamples=resamples, seed=seed
    )
    challenges = sorted(set(cells["challenge_ids"]))
    weights = lb.bootstrap_weights(len(challenges), resamples, seed)
    agents = sorted(set(cells["agent_ids"]))
    boot_ranks = np.empty((resamples, len(agents)))
    boot_scores = np.empty((resamples, len(agents)))
    for b in range(resamples):
        scores = _loop_scores(cells, dict(zip(challenges, weights[b], strict=True)), method)
        ranks = _loop_ranks(scores)
        boot_scores[b] = [scores[a] for a in agents]
        boot_ranks[b] = [ranks[a] for a in agents]
    tail = (1 - level) / 2
    for i, agent in enumerate(result.agents):
        finite = boot_ranks[:, i][np.isfinite(boot_ranks[:, i])]
        assert agent.rank_ci_low == np.percentile(finite, 100 * tail, method="lower")
        assert agent.rank_ci_high == np.percentile(finite, 100 * (1 - tail), method="higher")
        better = sum(
            np.percentile(boot_scores[:, j] - boot_scores[:, i], 100 * tail, method="lower") > 0
            for j in range(len(agents))
            if j != i
        )
        assert agent.rank_upper_bound == 1 + better


def test_weights_are_reproducible_resamples_of_every_challenge() -> None:
    w = lb.bootstrap_weights(13, 40, seed=5)
    assert w.shape == (40, 13)
    assert np.all(w.sum(axis=1) == 13)
    assert np.array_equal(w, lb.bootstrap_weights(13, 40, seed=5))
    assert not np.array_equal(w, lb.bootstrap_weights(13, 40, seed=6))


def test_competition_ranks_share_the_best_rank_on_ties() -> None:
    ranks = lb.competition_ranks(np.array([[3.0, 5.0, 5.0, np.nan, 1.0]]))
    assert ranks[0, :3].tolist() == [3.0, 1.0, 1.0]
    assert np.isnan(ranks[0, 3]) and ranks[0, 4] == 4.0


def test_agents_equal_up_to_the_rounding_of_their_means_tie_and_never_move() -> None:
    """Every agent scored 30.03 on every challenge, from different numbers of attempts: the
    score sums are 30.03 x n, so some means are an ulp off. They tied at rank 1 only
    partly before (ranks 1, 1, 1, 1, 6, 1 by challenge mean), and removing a challenge
    moved agents."""
    rng = np.random.default_rng(0)
    attempts = rng.integers(3, 40, (6, 20)).astype(np.float64)
    score_sums = 30.03 * attempts
    for method in lb.METHODS:
        scores = lb.leaderboard_scores(attempts, score_sums, np.ones(20), method)
        assert np.unique(scores).size > 1  # the rounding is there
        assert lb.competition_ranks(scores).tolist() == [1.0] * 6
        resampled = lb.leaderboard_scores(
            attempts, score_sums, lb.bootstrap_weights(20, 200, seed=1), method
        )
        assert (lb.competition_ranks(resampled) == 1).all()
        assert lb.significantly_better_counts(resampled, 0.95).tolist() == [0.0] * 6
        assert (
            lb.significantly_better_counts(resampled + np.arange(6) * 1e-14, 0.95).tolist()
            == [0.0] * 6
        )


def test_planted_bias_lifts_its_agents_beyond_chance() -> None:
    """Two weak agents get +60 on eight flagged challenges; adjusting removes it exactly."""
    cells = _platform(8, 30, seed=3, skill_step=3.0)
    flagged = np.isin(cells["challenge_ids"], [f"c{i:03d}" for i in range(8)])
    lifted = np.isin(cells["agent_ids"], ["a00", "a01"]) & flagged
    cells["score_sums"] = cells["score_sums"] + 60 * cells["attempts"] * lifted
    cells["adjustments"] = np.where(lifted, 60.0, 0.0)
    cells["is_flagged"] = flagged
    result = lb.leaderboard_impact(**cells, resamples=400, seed=4)
    clean = _platform(8, 30, seed=3, skill_step=3.0)
    clean_scores = _loop_scores(
        clean, {c: 1.0 for c in set(clean["challenge_ids"])}, "challenge_mean"
    )
    by_id = {agent.agent_id: agent for agent in result.agents}
    for agent_id, standing in by_id.items():
        assert standing.score_bias_adjusted == pytest.approx(clean_scores[agent_id], rel=1e-12)
    moved = [a for a in result.agents if a.rank_change_bias_adjusted]
    assert moved
    assert by_id["a00"].rank_change_bias_adjusted > 0
    assert by_id["a00"].is_change_bias_adjusted_beyond_chance
    assert by_id["a00"].change_bias_adjusted_ci_low > 0
    impacts = {impact.challenge_id: impact for impact in result.challenge_impacts}
    assert sorted(impacts) == [f"c{i:03d}" for i in range(8)]
    assert all(impact.agents_moved_adjusted >= 0 for impact in impacts.values())


@pytest.mark.parametrize(
    ("agents", "challenges", "reason"),
    [
        (1, 10, "fewer than two agents"),
        (4, 1, "fewer than two challenges"),
    ],
)
def test_degenerate_platforms_give_no_ranks_with_a_reason(
    agents: int, challenges: int, reason: str
) -> None:
    cells = _platform(agents, challenges, seed=5)
    result = lb.leaderboard_impact(**cells, resamples=20)
    assert result.status == "not_computable"
    assert reason in (result.reason or "")
    assert all(agent.rank is None and agent.score is None for agent in result.agents)
    assert all(agent.reason for agent in result.agents)


def test_ties_and_agents_with_missing_challenges() -> None:
    cells = {
        "agent_ids": np.array(["x", "x", "y", "y", "z"]),
        "challenge_ids": np.array(["c1", "c2", "c1", "c2", "c1"]),
        "attempts": np.array([2.0, 2.0, 1.0, 1.0, 4.0]),
        "score_sums": np.array([100.0, 60.0, 50.0, 30.0, 200.0]),
        "adjustments": np.zeros(5),
        "is_flagged": np.zeros(5, dtype=bool),
    }
    result = lb.leaderboard_impact(**cells, resamples=30)
    ranks = {agent.agent_id: agent.rank for agent in result.agents}
    assert ranks == {"z": 1, "x": 2, "y": 2}
    not_enough = lb.leaderboard_impact(**cells, min_challenges=2, resamples=30)
    standing = {agent.agent_id: agent for agent in not_enough.agents}
    assert standing["z"].status == "not_ranked" and standing["z"].rank is None
    assert "leaderboard_min_challenges" in (standing["z"].reason or "")
    assert standing["x"].rank == standing["y"].rank == 1


def test_cells_below_the_minimum_are_left_out() -> None:
    cells = _platform(5, 12, seed=6)
    result = lb.leaderboard_impact(**cells, min_cell_attempts=4, resamples=20)
    kept = cells["attempts"] >= 4
    sub = {k: v[kept] for k, v in cells.items()}
    expected = _loop_scores(sub, {c: 1.0 for c in set(sub["challenge_ids"])}, "challenge_mean")
    for agent in result.agents:
        if agent.status == "ok":
            assert agent.score == pytest.approx(expected[agent.agent_id], rel=1e-12)


def test_bad_arguments_raise() -> None:
    cells = _platform(3, 4, seed=7)
    with pytest.raises(ValueError, match="method"):
        lb.leaderboard_impact(**cells, method="median")
    with pytest.raises(ValueError, match="level"):
        lb.leaderboard_impact(**cells, level=1.0)


@settings(max_examples=40, deadline=None)
@given(
    agents=st.integers(0, 6),
    challenges=st.integers(0, 6),
    missing=st.floats(0, 0.9),
    seed=st.integers(0, 10_000),
    flagged=st.integers(0, 3),
    method=st.sampled_from(lb.METHODS),
)
def test_random_and_degenerate_input_never_invents_a_rank(
    agents: int, challenges: int, missing: float, seed: int, flagged: int, method: str
) -> None:
    rng = np.random.default_rng(seed)
    if agents and challenges:
        cells = _platform(agents, challenges, seed, missing=missing, skill_step=0.0)
        if cells["attempts"].size:
            cells["score_sums"] = (
                np.round(cells["score_sums"] / cells["attempts"]) * cells["attempts"]
            )
        cells["is_flagged"] = np.isin(cells["challenge_ids"], [f"c{i:03d}" for i in range(flagged)])
        cells["adjustments"] = np.where(
            cells["is_flagged"], rng.normal(0, 10, cells["attempts"].size), 0.0
        )
    else:
        cells = {
            "agent_ids": np.array([], dtype=object),
            "challenge_ids": np.array([], dtype=object),
            "attempts": np.array([]),
            "score_sums": np.array([]),
            "adjustments": np.array([]),
            "is_flagged": np.array([], dtype=bool),
        }
    result = lb.leaderboard_impact(**cells, method=method, resamples=25, seed=seed)
    ranked = [agent for agent in result.agents if agent.rank is not None]
    if result.status == "ok":
        assert len(ranked) == result.ranked_agents >= 2
        for agent in ranked:
            assert 1 <= agent.rank <= len(ranked)
            assert 1 <= agent.rank_ci_low <= agent.rank_ci_high <= len(ranked)
            assert 1 <= agent.rank_upper_bound <= len(ranked)
            if agent.change_bias_adjusted_ci_low is not None:
                assert agent.change_bias_adjusted_ci_low <= agent.change_bias_adjusted_ci_high
        if not cells["is_flagged"].any():
            assert all(agent.rank_change_bias_adjusted == 0 for agent in ranked)
            assert not any(agent.is_change_bias_adjusted_beyond_chance for agent in ranked)
    else:
        assert result.status == "not_computable" and result.reason
        assert ranked == []


def test_udf_on_duckdb_equals_the_pure_function() -> None:
    cells = _platform(6, 15, seed=8, missing=0.2)
    cells["is_flagged"] = np.isin(cells["challenge_ids"], ["c001"])
    cells["adjustments"] = np.where(
        cells["is_flagged"] & np.isin(cells["agent_ids"], ["a00", "a01"]), 12.5, 0.0
    )
    connection = duckdb.connect()
    register_udfs(connection)
    connection.execute(
        "create table cells as select * from (values "
        + ", ".join(
            f"('{a}', '{c}', {int(n)}, {float(s)!r}::double, {float(d)!r}::double,"
            f" {str(bool(f)).lower()})"
            for a, c, n, s, d, f in zip(*cells.values(), strict=True)
        )
        + ") t(agent_id, challenge_id, attempts, score_sum, adjustment, is_flagged)"
    )
    ordered = "order by agent_id, challenge_id"
    row = connection.execute(
        f"""select cf_leaderboard_impact(
            list(agent_id {ordered}), list(challenge_id {ordered}),
            list(attempts::bigint {ordered}), list(score_sum {ordered}),
            list(adjustment {ordered}), list(is_flagged {ordered}),
            'attempt_mean', 2, 1, 0.9, 60, 3) from cells"""
    ).fetchone()[0]
    expected = lb.leaderboard_impact(
        **cells, method="attempt_mean", min_challenges=2, level=0.9, resamples=60, seed=3
    )
    assert row["status"] == expected.status
    assert row["agents"] == [vars(agent) for agent in expected.agents]
    assert row["challenge_impacts"] == [vars(i) for i in expected.challenge_impacts]
    null_row = connection.execute(
        "select cf_leaderboard_impact(null::varchar[], null, null, null, null, null,"
        " 'challenge_mean', 1, 1, 0.95, 10, 1)"
    ).fetchone()[0]
    assert null_row is None


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 40),
    columns=st.integers(1, 8),
    missing=st.floats(0, 1),
    level=st.floats(0.05, 0.99),
    seed=st.integers(0, 10_000),
)
def test_percentile_interval_is_numpys_nanquantile_per_column(
    rows: int, columns: int, missing: float, level: float, seed: int
) -> None:
    """The vectorised path (columns without NaN) and the NaN path agree with numpy's own
    per-column nanquantile, ties and all-NaN columns included."""
    rng = np.random.default_rng(seed)
    samples = np.round(rng.normal(size=(rows, columns)), 1)
    samples[rng.random(samples.shape) < missing] = np.nan
    low, high = lb.percentile_interval(samples, level)
    tail = (1.0 - level) / 2.0
    for column in range(columns):
        values = samples[:, column]
        if np.isfinite(values).any():
            assert low[column] == np.nanquantile(values, tail, method="lower")
            assert high[column] == np.nanquantile(values, 1.0 - tail, method="higher")
        else:
            assert np.isnan(low[column]) and np.isnan(high[column])


def _better_counts_by_column(resampled: np.ndarray, level: float) -> np.ndarray:
    """significantly_better_counts by its definition: percentile_interval per agent."""
    counts = np.full(resampled.shape[1], np.nan)
    for i in range(resampled.shape[1]):
        if np.isfinite(resampled[:, i]).any():
            low, _ = lb.percentile_interval(resampled - resampled[:, [i]], level)
            low[i] = np.nan
            counts[i] = float(np.sum(np.round(low, lb.SCORE_DECIMALS) > 0))
    return counts


@settings(max_examples=80, deadline=None)
@given(
    rows=st.integers(1, 60),
    columns=st.integers(1, 9),
    missing=st.sampled_from([0.0, 0.0, 0.02, 0.3, 1.0]),
    level=st.floats(0.05, 0.99),
    seed=st.integers(0, 10_000),
)
def test_significantly_better_counts_equal_the_per_column_intervals(
    rows: int, columns: int, missing: float, level: float, seed: int
) -> None:
    """The partition path (pairs scored in every resample) and the interval path (the
    others) count exactly what percentile_interval's lower ends count: ties, agents
    without any score and resamples where an agent has none included."""
    rng = np.random.default_rng(seed)
    resampled = np.round(rng.normal(size=(rows, columns)), 1)
    resampled[rng.random(resampled.shape) < missing] = np.nan
    np.testing.assert_array_equal(
        lb.significantly_better_counts(resampled, level),
        _better_counts_by_column(resampled, level),
    )
