"""One row per challenge, per agent and per experiment contrast: the 2PL IRT fit (see
challenge_fairness.detectors.irt for the method)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from challenge_fairness.detectors.irt import fit_2pl_frame

    # the binomial counts: scored attempts and passes (score >= irt_pass_score) per cell,
    # as arrow (a million cells or more on many agents: no Python string per cell)
    cells = dbt.ref("int_agent_challenge_scores_summarised")
    counts = cells.project(
        "agent_id, challenge_id, scored_attempts as attempts, passes"
    ).to_arrow_table()
    contrasts = dbt.ref("int_experiment_discrimination_contrasts").df()
    return fit_2pl_frame(counts, alpha=float(dbt.config.get("alpha")), contrasts=contrasts)
