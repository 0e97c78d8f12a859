"""Family clustering: silhouette against its definition (an independent loop and a value
worked by hand), the permutation p-value, PCA against an eigendecomposition, degenerate
inputs, and the marts end to end (planted profiles flagged, fair platform quiet, one
family not testable)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from challenge_fairness.detectors.family_clustering import (
    centred_score_matrix,
    family_clustering,
    permutation_p_value,
    principal_components,
    silhouette_samples,
)
from challenge_fairness.stats import STATUS_NOT_COMPUTABLE, STATUS_OK
from conftest import read_table
from cutoff_approach_clustering_fixtures import ABSENT, FAIR, PERMUTATIONS, PLANTED, built
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial import distance


def silhouette_by_loops(points: list[list[float]], labels: list[str]) -> list[float]:
    """Rousseeuw's definition, point by point, with math.dist (no matrices)."""
    values = []
    for i, (point, label) in enumerate(zip(points, labels, strict=True)):
        own = [math.dist(point, q) for j, q in enumerate(points) if labels[j] == label and j != i]
        if not own:
            values.append(0.0)
            continue
        a = sum(own) / len(own)
        b = min(
            sum(math.dist(point, q) for q, m in zip(points, labels, strict=True) if m == other)
            / labels.count(other)
            for other in set(labels) - {label}
        )
        values.append(0.0 if max(a, b) == 0 else (b - a) / max(a, b))
    return values


@st.composite
def labelled_points(draw: st.DrawFn) -> tuple[np.ndarray, list[str]]:
    n = draw(st.integers(3, 25))
    dims = draw(st.integers(1, 6))
    # rounded: pdist squares coordinates, so 1e-200 would underflow where math.dist does not
    element = st.floats(-50, 50, allow_nan=False).map(lambda value: round(value, 4))
    points = draw(hnp.arrays(np.float64, (n, dims), elements=element))
    labels = draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n))
    if len(set(labels)) < 2:
        labels[0] = "a" if labels[0] != "a" else "b"
    return points, labels


@given(labelled_points())
@settings(max_examples=120, deadline=None)
def test_silhouette_matches_the_definition_point_by_point(
    data: tuple[np.ndarray, list[str]],
) -> None:
    points, labels = data
    distances = distance.squareform(distance.pdist(points))
    expected = silhouette_by_loops(points.tolist(), labels)
    np.testing.assert_allclose(silhouette_samples(distances, labels), expected, atol=1e-9)


def test_silhouette_of_a_worked_example() -> None:
    """Points 0, 1 (cluster a) and 5, 6 (cluster b) on a line, worked by hand:
    s(0) = 1 - 1/5.5 = 9/11, s(1) = 1 - 1/4.5 = 7/9; mean (9/11 + 7/9) / 2 = 79/99."""
    distances = distance.squareform(distance.pdist(np.array([[0.0], [1.0], [5.0], [6.0]])))
    values = silhouette_samples(distances, ["a", "a", "b", "b"])
    np.testing.assert_allclose(values, [9 / 11, 7 / 9, 7 / 9, 9 / 11])
    assert values.mean() == pytest.approx(79 / 99)


def test_silhouette_edge_cases() -> None:
    distances = distance.squareform(distance.pdist(np.array([[0.0], [1.0], [7.0]])))
    assert silhouette_samples(distances, ["a", "a", "b"])[2] == 0.0  # alone in its cluster
    assert np.all(silhouette_samples(np.zeros((4, 4)), ["a", "a", "b", "b"]) == 0.0)
    with pytest.raises(ValueError, match="two clusters"):
        silhouette_samples(distances, ["a", "a", "a"])


def test_permutation_p_value_is_exact_for_perfect_separation_and_seeded() -> None:
    points = np.array([[0.0], [0.1], [0.2], [10.0], [10.1], [10.2], [20.0], [20.1], [20.2]])
    labels = ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    distances = distance.squareform(distance.pdist(points))
    observed, p = permutation_p_value(distances, labels, 199, seed=3)
    assert observed > 0.9
    # 9! / (3!)^3 / 3! = 280 distinct partitions: a shuffle reproduces it with prob 1/280
    assert p <= 3 / 200
    assert permutation_p_value(distances, labels, 199, seed=3) == (observed, p)
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(30, 5))
    random_labels = list(rng.choice(["a", "b", "c"], 30))
    noise_distances = distance.squareform(distance.pdist(noise))
    p_values = [permutation_p_value(noise_distances, random_labels, 99, s)[1] for s in range(3)]
    assert all(0.01 < p <= 1 for p in p_values)


@given(hnp.arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(2, 8)),
                  elements=st.floats(-20, 20, allow_subnormal=False)))  # fmt: skip
@settings(max_examples=100, deadline=None)
def test_principal_components_match_the_covariance_eigendecomposition(matrix: np.ndarray) -> None:
    centred = matrix - matrix.mean(axis=0)
    eigenvalues, eigenvectors = np.linalg.eigh(centred.T @ centred)
    order = np.argsort(eigenvalues)[::-1]
    eigenvalues, eigenvectors = eigenvalues[order], eigenvectors[:, order]
    if eigenvalues.sum() <= 1e-9 or eigenvalues[0] - eigenvalues[1] <= 1e-6 * eigenvalues[0]:
        return  # nothing to project, or the first axis is not unique
    scores, ratios = principal_components(matrix)
    assert ratios[0] == pytest.approx(eigenvalues[0] / eigenvalues.sum(), rel=1e-7)
    assert ratios[1] == pytest.approx(max(eigenvalues[1], 0) / eigenvalues.sum(), abs=1e-9)
    projected = centred @ eigenvectors[:, 0]
    np.testing.assert_allclose(np.abs(scores[:, 0]), np.abs(projected), atol=1e-6)


def test_principal_component_signs_are_deterministic() -> None:
    matrix = np.array([[1.0, 0.0], [-1.0, 0.1], [3.0, 0.2], [-3.0, -0.3]])
    scores, _ = principal_components(matrix)
    flipped, _ = principal_components(-matrix)
    np.testing.assert_allclose(scores[:, 0], -flipped[:, 0])  # same axis, same sign rule
    assert np.all(np.isnan(principal_components(np.zeros((3, 2)))[1]))


def test_centred_matrix_fills_missing_cells_with_the_average() -> None:
    matrix, observed = centred_score_matrix(
        [0, 0, 1, 1, 2], [0, 1, 0, 1, 0], [80.0, 40.0, 60.0, 50.0, 70.0], (3, 2), False
    )
    np.testing.assert_allclose(matrix[:, 0], [10.0, -10.0, 0.0])  # challenge mean 70
    np.testing.assert_allclose(matrix[:, 1], [-5.0, 5.0, 0.0])  # agent 2 never attempted it
    assert not observed[2, 1]
    levelled, _ = centred_score_matrix(
        [0, 0, 1, 1, 2], [0, 1, 0, 1, 0], [80.0, 40.0, 60.0, 50.0, 70.0], (3, 2), True
    )
    np.testing.assert_allclose(levelled, [[7.5, -7.5], [-7.5, 7.5], [0.0, 0.0]])


def test_agent_levels_and_difficulties_leave_nothing_where_agents_skipped_challenges() -> None:
    """Scores = agent level + challenge difficulty, exactly, with a quarter of the cells
    missing: the least-squares centring leaves no profile. One pass of challenge then
    agent means left about 1 point where agents skipped challenges (the challenge means
    carried the levels of the agents that attempted them), enough for a perfect family
    clustering of a pure skill gap."""
    rng = np.random.default_rng(4)
    levels = np.repeat([0.0, 10.0, 20.0], 4)  # three families of four agents
    difficulty = rng.uniform(20, 60, 15)
    keep = rng.random((12, 15)) > 0.25
    agents, challenges = np.nonzero(keep)
    scores = levels[agents] + difficulty[challenges]
    matrix, observed = centred_score_matrix(agents, challenges, scores, (12, 15), True)
    assert np.abs(matrix[observed]).max() < 1e-9
    kept, _ = centred_score_matrix(agents, challenges, scores, (12, 15), False)
    assert np.abs(kept[observed]).max() > 5  # without removing levels, the gap stays
    result = family_clustering(
        [f"a{a}" for a in agents], [f"f{a // 4}" for a in agents], [f"c{c}" for c in challenges],
        scores, 0.5, 99, seed=0,
    )  # fmt: skip
    assert result.status == STATUS_NOT_COMPUTABLE
    assert "same centred score profile" in result.reason


def profiles(
    rng: np.random.Generator, families: int, agents_per_family: int, challenges: int, sd: float
) -> tuple[list[str], list[str], list[str], np.ndarray]:
    """Long cells: each family has its own challenge profile (SD `sd`), agents noise 5."""
    family_profile = rng.normal(0, sd, (families, challenges))
    agents, labels, challenge_ids, means = [], [], [], []
    for f in range(families):
        for a in range(agents_per_family):
            level = rng.normal(0, 5)  # agent skill: removed by the agent centring
            for c in range(challenges):
                agents.append(f"agent-{f}-{a}")
                labels.append(f"family-{f}")
                challenge_ids.append(f"ch-{c:02d}")
                means.append(60 + level + family_profile[f, c] + rng.normal(0, 5))
    return agents, labels, challenge_ids, np.asarray(means)


def test_planted_profiles_cluster_and_skill_alone_does_not() -> None:
    rng = np.random.default_rng(2)
    planted = family_clustering(*profiles(rng, 4, 4, 30, 8.0), 0.5, 199, seed=1)
    assert planted.status == STATUS_OK and planted.mean_silhouette > 0.25
    assert planted.p_value == pytest.approx(1 / 200)
    fair = family_clustering(*profiles(rng, 4, 4, 30, 0.0), 0.5, 199, seed=1)
    assert fair.status == STATUS_OK and fair.mean_silhouette < 0.1
    skill_only = family_clustering(*profiles(rng, 4, 4, 30, 0.0), 0.5, 199, seed=1,
                                   remove_agent_level=False)  # fmt: skip
    assert skill_only.mean_silhouette < 0.25  # random agent levels, not family levels


def test_agents_with_too_few_challenges_are_excluded_with_a_reason() -> None:
    agents, labels, challenges, means = profiles(np.random.default_rng(3), 3, 3, 10, 5.0)
    keep = [
        not (a == "agent-0-0" and c >= "ch-03") for a, c in zip(agents, challenges, strict=True)
    ]
    result = family_clustering(
        [a for a, k in zip(agents, keep, strict=True) if k],
        [f for f, k in zip(labels, keep, strict=True) if k],
        [c for c, k in zip(challenges, keep, strict=True) if k],
        means[np.asarray(keep)], 0.5, 49, seed=0,
    )  # fmt: skip
    excluded = [p for p in result.points if not p.is_included]
    assert [p.agent_id for p in excluded] == ["agent-0-0"]
    assert "3 of 10 challenges" in excluded[0].exclusion_reason
    assert excluded[0].pc1 is None and excluded[0].silhouette is None
    assert result.agents_analysed == 8 and result.agents_excluded == 1


@pytest.mark.parametrize(
    ("cells", "reason"),
    [
        (([], [], [], []), "no agent has scored attempts"),
        ((["a1", "a2"], ["f", "g"], ["c1", "c1"], [50.0, 60.0]), "fewer than two challenges"),
        (
            (["a1", "a1", "a2", "a2"], ["f", "f", "f", "f"], ["c1", "c2", "c1", "c2"],
             [50.0, 60.0, 70.0, 40.0]),
            "fewer than two model families",
        ),
        (
            (["a1", "a1", "a2", "a2"], ["f", "f", "g", "g"], ["c1", "c2", "c1", "c2"],
             [50.0, 60.0, 70.0, 40.0]),
            "no more analysed agents than families",
        ),
        (
            (["a1", "a1", "a2", "a2", "a3", "a3"], ["f", "f", "g", "g", "g", "g"],
             ["c1", "c2", "c1", "c2", "c1", "c2"], [50.0, 60.0, 50.0, 60.0, 50.0, 60.0]),
            "same centred score profile",
        ),
    ],
)  # fmt: skip
def test_degenerate_inputs_are_not_computable_with_a_reason(cells: tuple, reason: str) -> None:
    result = family_clustering(*cells, 0.5, 19, seed=0)
    assert result.status == STATUS_NOT_COMPUTABLE and reason in result.reason
    assert result.mean_silhouette is None and result.p_value is None


def test_profiles_equal_up_to_the_rounding_of_their_means_are_the_same_profile() -> None:
    """Every agent scored 30.03 on every challenge; the cell means come from counts, as SQL
    computes them (30.03 * n / n), some an ulp off. Clustering that rounding gave a
    silhouette and a p-value (0.15, 0.11) where no profile differs."""
    agents = [f"a{i}" for i in range(8) for _ in range(5)]
    families = [f"f{i % 2}" for i in range(8) for _ in range(5)]
    challenges = [f"c{j}" for _ in range(8) for j in range(5)]
    counts = np.random.default_rng(0).integers(3, 40, len(agents))
    means = 30.03 * counts / counts
    assert np.unique(means).size > 1
    for remove_agent_level in (True, False):
        result = family_clustering(
            agents, families, challenges, means, 0.5, 99, seed=1,
            remove_agent_level=remove_agent_level,
        )  # fmt: skip
        assert result.status == STATUS_NOT_COMPUTABLE
        assert "same centred score profile" in result.reason
        assert result.mean_silhouette is None and result.p_value is None


def test_an_agent_in_two_families_is_an_error() -> None:
    with pytest.raises(ValueError, match="more than one model family"):
        family_clustering(["a", "a"], ["f", "g"], ["c1", "c2"], [1.0, 2.0], 0.5, 9, 0)


# --- end to end ------------------------------------------------------------------------------


def clustering(build: dict) -> tuple[dict, object]:
    assert build["run"].success, build["run"].output
    platform = read_table(build["database"], "select * from main.fct_family_clustering")
    agents = read_table(build["database"], "select * from main.fct_agent_score_map")
    assert len(platform) == 1
    return platform.iloc[0].to_dict(), agents


@pytest.mark.dbt
def test_planted_family_profiles_are_flagged_and_mapped() -> None:
    platform, agents = clustering(built(PLANTED))
    assert platform["status"] == "tested" and platform["is_flagged"]
    assert platform["mean_silhouette"] > platform["silhouette_threshold"]
    assert platform["permutations"] == PERMUTATIONS  # the var reaches the Python model
    assert platform["p_value"] == pytest.approx(1 / (PERMUTATIONS + 1))
    assert platform["agents_analysed"] == len(agents) == 36 and platform["families"] == 6
    assert agents["pc1"].notna().all() and agents["pc2"].notna().all()
    assert agents["silhouette"].mean() == pytest.approx(platform["mean_silhouette"], rel=1e-9)
    # the families' centroids are further apart than the agents of a family
    centroids = agents.groupby("model_family")[["pc1", "pc2"]].mean()
    spread = agents.groupby("model_family")[["pc1", "pc2"]].std().mean().mean()
    assert distance.pdist(centroids.to_numpy()).mean() > spread


@pytest.mark.dbt
@pytest.mark.parametrize("remove_agent_level", [True, False])
def test_a_skill_gap_alone_is_a_profile_only_when_levels_are_kept(
    tmp_path: Path, remove_agent_level: bool
) -> None:
    """Families differ only in level: every attempt of a family scores 30.03, 40.1 or
    50.17. With agent levels removed (the default) no agent has a profile; kept, the gap
    clusters the families perfectly. The var never reached the Python model before (dbt
    passes only the config keys its parser finds, and it missed this one inside a
    comparison): every build kept the levels, and this platform was flagged."""
    from hardening_platforms import build_platform, small_platform

    tables = small_platform(7, n_attempts=3_000, families=3)
    family_of_model = {m["model_id"]: m["model_family"] for m in tables["models"]}
    family = {a["agent_id"]: family_of_model[a["model_id"]] for a in tables["agents"]}
    level = {"claude": 30.03, "gemini": 40.1, "gpt": 50.17}
    for row in tables["attempts"]:
        if row["score"] is not None:
            row["score"] = level[family[row["agent_id"]]]
    build = build_platform(
        tables,
        tmp_path,
        select=["+fct_family_clustering"],
        dbt_vars={"clustering_remove_agent_level": remove_agent_level},
    )
    assert build["run"].success, build["run"].output
    (platform,) = build["tables"]["main.fct_family_clustering"].to_dict("records")
    if remove_agent_level:
        assert platform["status"] == "not_testable"  # the mart's word for not computable
        assert "same centred score profile" in platform["reason"]
        assert not platform["is_flagged"]
    else:
        assert platform["status"] == "tested" and platform["is_flagged"]
        assert platform["mean_silhouette"] > 0.9


@pytest.mark.dbt
def test_fair_platform_is_not_flagged() -> None:
    platform, agents = clustering(built(FAIR))
    assert platform["status"] == "tested" and not platform["is_flagged"]
    assert platform["mean_silhouette"] < 0.1


@pytest.mark.dbt
def test_one_family_is_not_testable_and_coverage_says_so() -> None:
    build = built(ABSENT)
    platform, agents = clustering(build)
    assert platform["status"] == "not_testable" and not platform["is_flagged"]
    assert "fewer than two model families" in platform["reason"]
    assert platform["mean_silhouette"] is None or np.isnan(platform["mean_silhouette"])
    assert len(agents) == 6 and agents["silhouette"].isna().all()
    coverage = read_table(
        build["database"],
        "select * exclude (mart) from main.fct_detector_coverage"
        " where detector = 'family_clustering'",
    ).iloc[0]
    assert not coverage["is_available"] and coverage["rows_analysed"] == 0
    assert "fewer than two model families" in coverage["missing_inputs"]
