"""One row per Great Expectations expectation run on the fairness marts (the gate's evidence)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from challenge_fairness.gate import validate_marts

    suite_names = [name.strip() for name in dbt.config.get("gx_suites").split(",") if name.strip()]
    marts = {
        "fct_challenge_verdicts": dbt.ref("fct_challenge_verdicts"),
        "fct_family_deviation": dbt.ref("fct_family_deviation"),
        "fct_combination_difficulty": dbt.ref("fct_combination_difficulty"),
    }
    thresholds = {
        "family_deviation_threshold": float(dbt.config.get("family_deviation_threshold")),
        "combination_deviation_threshold": float(
            dbt.config.get("combination_deviation_threshold")
        ),
    }
    return validate_marts(
        {name: relation.df() for name, relation in marts.items()},
        suite_names=suite_names,
        thresholds=thresholds,
        severity=str(dbt.config.get("fairness_gate_severity")),
    )
