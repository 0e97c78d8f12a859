"""Family clustering: do agents' score profiles across challenges group by model family?

Each agent is a vector of its mean scores on the challenges, centred per challenge (the
challenge's difficulty removed: mean over the agents that attempted it) and, by default,
per agent (its overall level removed: genuine skill shifts every challenge alike and is
not a profile); both are then removed by least squares, alternating until no mean is left,
so that where agents attempted different challenges a family's skill does not stay in the
challenge means and come back as a profile. A cell the agent never attempted is 0 after
centring, i.e. "as the average agent"; agents that attempted fewer than a minimum share of
the challenges are left out, so imputed cells stay a minority of every vector.

Separation by family is the mean silhouette (Rousseeuw 1987) of the family labels on
Euclidean distances (scipy.spatial.distance), with a permutation p-value (labels shuffled,
p = (1 + #{permuted >= observed}) / (1 + B), Phipson & Smyth 2010). 2-D coordinates for a
scatter plot are the first two principal components (numpy SVD of the column-centred
matrix).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.spatial import distance

from challenge_fairness.registry import UdfSpec
from challenge_fairness.stats import STATUS_NOT_COMPUTABLE, STATUS_OK, zero_sd_resolution

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

UDFS: tuple[UdfSpec, ...] = ()  # computed once per build in a dbt Python model


def silhouette_samples(distances: npt.ArrayLike, labels: npt.ArrayLike) -> FloatArray:
    """Silhouette of each point from a square distance matrix and cluster labels.

    s(i) = (b - a) / max(a, b): a = mean distance to the other members of i's cluster,
    b = the smallest mean distance to the members of another cluster (Rousseeuw 1987).
    A point alone in its cluster has s = 0; so does a point with a = b = 0. Needs at
    least two clusters.
    """
    d = np.asarray(distances, dtype=np.float64)
    _, codes = np.unique(np.asarray(labels), return_inverse=True)
    codes = codes.ravel()
    n, k = codes.size, int(codes.max()) + 1 if codes.size else 0
    if d.shape != (n, n):
        raise ValueError("distances must be a square matrix with one row per label")
    if k < 2:
        raise ValueError("a silhouette needs at least two clusters")
    members = (codes[:, None] == np.arange(k)[None, :]).astype(np.float64)
    sums = d @ members
    sizes = members.sum(axis=0)
    own_size = sizes[codes]
    rows = np.arange(n)
    a = sums[rows, codes] / np.maximum(own_size - 1, 1)
    mean_to_cluster = sums / sizes
    mean_to_cluster[rows, codes] = np.inf
    b = mean_to_cluster.min(axis=1)
    larger = np.maximum(a, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(larger > 0, (b - a) / larger, 0.0)
    s[own_size == 1] = 0.0
    return s


def permutation_p_value(
    distances: npt.ArrayLike, labels: npt.ArrayLike, permutations: int, seed: int
) -> tuple[float, float]:
    """(observed mean silhouette, permutation p-value) with labels shuffled `permutations` times.

    p = (1 + #{permuted mean >= observed}) / (1 + permutations): never 0, exact under
    exchangeability (Phipson & Smyth 2010).
    """
    labels = np.asarray(labels)
    observed = float(silhouette_samples(distances, labels).mean())
    rng = np.random.default_rng(seed)
    tolerance = 1e-12 * max(1.0, abs(observed))
    at_least = 0
    for _ in range(permutations):
        shuffled = rng.permutation(labels)
        if silhouette_samples(distances, shuffled).mean() >= observed - tolerance:
            at_least += 1
    return observed, (1 + at_least) / (1 + permutations)


def principal_components(
    matrix: npt.ArrayLike, components: int = 2
) -> tuple[FloatArray, FloatArray]:
    """Scores (rows x components) and explained variance ratios of the column-centred matrix.

    numpy SVD; each component's sign is fixed so that its largest-magnitude loading is
    positive (deterministic output). Components beyond the matrix's size are NaN.
    """
    x = np.asarray(matrix, dtype=np.float64)
    centred = x - x.mean(axis=0, keepdims=True)
    scores = np.full((x.shape[0], components), np.nan)
    ratios = np.full(components, np.nan)
    if centred.size == 0:
        return scores, ratios
    u, singular_values, vt = np.linalg.svd(centred, full_matrices=False)
    total = float(np.sum(singular_values**2))
    if not total > 0:
        return scores, ratios
    available = min(components, singular_values.size)
    for j in range(available):
        if vt[j, np.argmax(np.abs(vt[j]))] < 0:
            u[:, j], vt[j] = -u[:, j], -vt[j]
        scores[:, j] = u[:, j] * singular_values[j]
        ratios[j] = singular_values[j] ** 2 / total
    return scores, ratios


# The alternating centring's sweeps at most (see centred_score_matrix).
MAX_CENTRING_SWEEPS = 1_000


def centred_score_matrix(
    agent_codes: npt.ArrayLike,
    challenge_codes: npt.ArrayLike,
    mean_scores: npt.ArrayLike,
    shape: tuple[int, int],
    remove_agent_level: bool,
) -> tuple[FloatArray, BoolArray]:
    """Agent x challenge matrix centred per challenge (and per agent), missing cells 0.

    Returns (matrix, observed mask). Without agent levels: each challenge's mean over the
    agents observed on it is removed. With them: challenge and agent means are removed in
    turn until neither is left (backfitting), i.e. the residuals of the least-squares
    additive fit (agent level + challenge difficulty) on the observed cells. One pass of
    each is that fit only when every agent attempted every challenge: where agents
    attempted different challenges, the challenge means of one pass still carry the
    levels of the agents that attempted them, so a skill gap between families (genuine,
    not a profile) would leave a family pattern in the residuals.
    """
    values = np.full(shape, np.nan)
    values[np.asarray(agent_codes), np.asarray(challenge_codes)] = np.asarray(
        mean_scores, dtype=np.float64
    )
    observed = ~np.isnan(values)
    centred = np.where(observed, values, 0.0)
    per_challenge = np.maximum(observed.sum(axis=0), 1)
    per_agent = np.maximum(observed.sum(axis=1), 1)
    # Converged when the means left are rounding: a few ulps of the scores.
    tolerance = 8 * np.spacing(float(np.abs(centred).max(initial=0.0)))
    left = np.inf
    for _ in range(MAX_CENTRING_SWEEPS):
        challenge_means = centred.sum(axis=0) / per_challenge
        centred = np.where(observed, centred - challenge_means[None, :], 0.0)
        if not remove_agent_level:
            break
        agent_means = centred.sum(axis=1) / per_agent
        centred = np.where(observed, centred - agent_means[:, None], 0.0)
        previous, left = (
            left,
            max(
                float(np.abs(challenge_means).max(initial=0.0)),
                float(np.abs(agent_means).max(initial=0.0)),
            ),
        )
        if left <= tolerance or left >= previous:  # converged, or rounding stalls it
            break
    return centred, observed


@dataclass(frozen=True)
class AgentPoint:
    """One agent in the analysis: its family, coverage, coordinates and silhouette."""

    agent_id: str
    model_family: str
    challenges_observed: int
    is_included: bool
    exclusion_reason: str | None
    pc1: float | None
    pc2: float | None
    silhouette: float | None


@dataclass(frozen=True)
class FamilyClustering:
    """The platform-level result and one point per agent with scored attempts."""

    agents_analysed: int
    agents_excluded: int
    families: int
    challenges: int
    mean_silhouette: float | None
    p_value: float | None
    permutations: int
    explained_variance_pc1: float | None
    explained_variance_pc2: float | None
    status: str
    reason: str | None
    points: tuple[AgentPoint, ...]


def _finite_or_none(value: float) -> float | None:
    """A float, or None for NaN/inf."""
    return float(value) if np.isfinite(value) else None


def family_clustering(
    agent_ids: Sequence[str],
    families: Sequence[str],
    challenge_ids: Sequence[str],
    mean_scores: npt.ArrayLike,
    min_challenge_share: float,
    permutations: int,
    seed: int,
    remove_agent_level: bool = True,
) -> FamilyClustering:
    """Silhouette of family labels on centred agent score profiles, its permutation p, PCA.

    Inputs are one element per (agent, challenge) cell with scored attempts. Challenges
    attempted by fewer than two agents are dropped; agents that attempted fewer than
    `min_challenge_share` of the remaining challenges are excluded (listed with a reason).
    """
    agents = np.asarray(agent_ids, dtype=object)
    labels = np.asarray(families, dtype=object)
    challenges = np.asarray(challenge_ids, dtype=object)
    means = np.asarray(mean_scores, dtype=np.float64)
    if not (agents.shape == labels.shape == challenges.shape == means.shape):
        raise ValueError("agent_ids, families, challenge_ids and mean_scores must match")
    finite = np.isfinite(means)
    agents, labels, challenges, means = (
        agents[finite],
        labels[finite],
        challenges[finite],
        means[finite],
    )

    agent_list, agent_codes = np.unique(agents, return_inverse=True)
    challenge_list, challenge_codes = np.unique(challenges, return_inverse=True)
    agent_family: dict[str, str] = {}
    for agent, family in zip(agents, labels, strict=True):
        if agent_family.setdefault(str(agent), str(family)) != str(family):
            raise ValueError(f"agent {agent!r} has more than one model family")

    observed = np.zeros((agent_list.size, challenge_list.size), dtype=bool)
    observed[agent_codes, challenge_codes] = True
    shared_challenges = observed.sum(axis=0) >= 2
    coverage = observed[:, shared_challenges].sum(axis=1)
    needed = min_challenge_share * int(shared_challenges.sum())
    included = (coverage >= needed) & (coverage > 0)

    def point(i: int, pc: FloatArray | None, silhouette: float | None) -> AgentPoint:
        agent = str(agent_list[i])
        reason = None
        if not included[i]:
            reason = (
                f"attempted {int(coverage[i])} of {int(shared_challenges.sum())} challenges,"
                f" fewer than clustering_min_challenge_share = {min_challenge_share:g}"
            )
        return AgentPoint(
            agent,
            agent_family[agent],
            int(observed[i].sum()),
            bool(included[i]),
            reason,
            None if pc is None else _finite_or_none(pc[0]),
            None if pc is None else _finite_or_none(pc[1]),
            silhouette,
        )

    kept_agents = np.flatnonzero(included)
    kept_families = np.asarray(
        [agent_family[str(agent_list[i])] for i in kept_agents], dtype=object
    )
    family_count = int(np.unique(kept_families).size) if kept_families.size else 0

    def result(
        status: str,
        reason: str | None,
        pcs: FloatArray | None = None,
        ratios: FloatArray | None = None,
        silhouettes: FloatArray | None = None,
        mean_silhouette: float | None = None,
        p_value: float | None = None,
        challenges_used: int = 0,
    ) -> FamilyClustering:
        position = {int(i): j for j, i in enumerate(kept_agents)}
        points = tuple(
            point(
                i,
                None if pcs is None or i not in position else pcs[position[i]],
                None
                if silhouettes is None or i not in position
                else float(silhouettes[position[i]]),
            )
            for i in range(agent_list.size)
        )
        return FamilyClustering(
            agents_analysed=int(kept_agents.size),
            agents_excluded=int(agent_list.size - kept_agents.size),
            families=family_count,
            challenges=challenges_used,
            mean_silhouette=mean_silhouette,
            p_value=p_value,
            permutations=permutations if p_value is not None else 0,
            explained_variance_pc1=None if ratios is None else _finite_or_none(ratios[0]),
            explained_variance_pc2=None if ratios is None else _finite_or_none(ratios[1]),
            status=status,
            reason=reason,
            points=points,
        )

    if agent_list.size == 0:
        return result(STATUS_NOT_COMPUTABLE, "no agent has scored attempts")
    if int(shared_challenges.sum()) < 2:
        return result(STATUS_NOT_COMPUTABLE, "fewer than two challenges attempted by two agents")
    if kept_agents.size < 2:
        return result(STATUS_NOT_COMPUTABLE, "fewer than two agents attempted enough challenges")

    cell_kept = included[agent_codes] & shared_challenges[challenge_codes]
    agent_position = np.full(agent_list.size, -1)
    agent_position[kept_agents] = np.arange(kept_agents.size)
    kept_challenges = np.flatnonzero(shared_challenges)
    challenge_position = np.full(challenge_list.size, -1)
    challenge_position[kept_challenges] = np.arange(kept_challenges.size)
    matrix, _ = centred_score_matrix(
        agent_position[agent_codes[cell_kept]],
        challenge_position[challenge_codes[cell_kept]],
        means[cell_kept],
        (kept_agents.size, kept_challenges.size),
        remove_agent_level,
    )
    # Profiles that differ only by the rounding of means computed from counts (every agent
    # scoring 30.03 on every challenge, from different counts) are the same profile.
    if matrix.size and np.abs(matrix).max() <= zero_sd_resolution(means[cell_kept]).max():
        matrix = np.zeros_like(matrix)
    pcs, ratios = principal_components(matrix)
    used = int(kept_challenges.size)
    if not np.isfinite(ratios[0]):
        return result(
            STATUS_NOT_COMPUTABLE,
            "every agent has the same centred score profile",
            challenges_used=used,
        )
    if family_count < 2:
        return result(
            STATUS_NOT_COMPUTABLE,
            "fewer than two model families among the analysed agents",
            pcs,
            ratios,
            challenges_used=used,
        )
    if kept_agents.size <= family_count:
        return result(
            STATUS_NOT_COMPUTABLE,
            "no more analysed agents than families: every family needs company for a silhouette",
            pcs,
            ratios,
            challenges_used=used,
        )
    distances = distance.squareform(distance.pdist(matrix, metric="euclidean"))
    silhouettes = silhouette_samples(distances, kept_families)
    observed_mean, p_value = permutation_p_value(distances, kept_families, permutations, seed)
    return result(
        STATUS_OK,
        None,
        pcs,
        ratios,
        silhouettes,
        observed_mean,
        p_value if permutations > 0 else None,
        used,
    )
