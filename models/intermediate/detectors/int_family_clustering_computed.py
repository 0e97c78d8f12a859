"""One row per agent with scored attempts: its family-clustering point (PCA coordinates,
silhouette) and, repeated on every row, the platform-level result (mean silhouette,
permutation p-value). Computed once per build over the small agent x challenge matrix."""

AGENT_COLUMNS = {
    "agent_id": "string",
    "model_id": "string",
    "model_family": "string",
    "scored_attempts": "Int64",
    "challenges_observed": "Int64",
    "is_included": "boolean",
    "exclusion_reason": "string",
    "pc1": "Float64",
    "pc2": "Float64",
    "silhouette": "Float64",
}
RUN_COLUMNS = {
    "agents_analysed": "Int64",
    "agents_excluded": "Int64",
    "families": "Int64",
    "challenges": "Int64",
    "mean_silhouette": "Float64",
    "p_value": "Float64",
    "permutations": "Int64",
    "explained_variance_pc1": "Float64",
    "explained_variance_pc2": "Float64",
    "status": "string",
    "reason": "string",
}


def model(dbt, session):
    dbt.config(materialized="table")
    import pandas as pd

    from challenge_fairness.detectors.family_clustering import family_clustering

    # Read as statements of their own: dbt passes a Python model only the config keys its
    # parser finds in dbt.config.get calls, and it does not look inside a comparison (this
    # key, read inside `... in (...)`, was never passed: agent levels were kept).
    remove_agent_level = dbt.config.get("clustering_remove_agent_level")
    if remove_agent_level is None:
        raise RuntimeError("var clustering_remove_agent_level did not reach the model's config")
    cells = dbt.ref("int_agent_challenge_scores_summarised").df()
    result = family_clustering(
        cells["agent_id"].astype(str).to_numpy(),
        cells["model_family"].astype(str).to_numpy(),
        cells["challenge_id"].astype(str).to_numpy(),
        cells["mean_score"].astype(float).to_numpy(),
        min_challenge_share=float(dbt.config.get("clustering_min_challenge_share")),
        permutations=int(dbt.config.get("clustering_permutations")),
        seed=int(dbt.config.get("clustering_seed")),
        remove_agent_level=str(remove_agent_level).lower() in ("true", "1", "yes"),
    )
    agents = cells.groupby("agent_id", as_index=False).agg(
        model_id=("model_id", "first"), scored_attempts=("scored_attempts", "sum")
    )
    points = pd.DataFrame(
        [
            {
                "agent_id": point.agent_id,
                "model_family": point.model_family,
                "challenges_observed": point.challenges_observed,
                "is_included": point.is_included,
                "exclusion_reason": point.exclusion_reason,
                "pc1": point.pc1,
                "pc2": point.pc2,
                "silhouette": point.silhouette,
            }
            for point in result.points
        ],
        columns=[c for c in AGENT_COLUMNS if c not in ("model_id", "scored_attempts")],
    )
    rows = points.merge(agents, on="agent_id", how="left")
    for column in RUN_COLUMNS:
        rows[column] = getattr(result, column)
    columns = {**AGENT_COLUMNS, **RUN_COLUMNS}
    return rows[list(columns)].astype(columns)
