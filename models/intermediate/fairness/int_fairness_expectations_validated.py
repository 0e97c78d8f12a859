"""One row per Great Expectations expectation run on the fairness marts (the gate's evidence)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from challenge_fairness.gate import validate_marts

    marts = {
        "fct_family_deviation": dbt.ref("fct_family_deviation").df(),
        "fct_combination_difficulty": dbt.ref("fct_combination_difficulty").df(),
    }
    thresholds = {
        "family_deviation_threshold": float(dbt.config.get("family_deviation_threshold")),
        "combination_deviation_threshold": float(
            dbt.config.get("combination_deviation_threshold")
        ),
    }
    return validate_marts(
        marts,
        suite_names=dbt.config.get("gx_suites"),
        thresholds=thresholds,
        severity=str(dbt.config.get("fairness_gate_severity")),
    )
