"""One row per Great Expectations expectation run on the fairness marts (the gate's evidence)."""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from challenge_fairness.gate import validate_marts

    # the suites and thresholds the detectors declare (or the var fairness_gate_suites lists)
    listed = dbt.ref("int_fairness_gate_suites_listed").df().sort_values("suite_order")
    suite_names = [str(name) for name in listed["suite_name"]]
    thresholds = {
        name: float(value)
        for text in listed["thresholds"].drop_duplicates()
        for name, value in json.loads(text).items()
    }
    # Every mart a suite may check: dbt needs the refs spelled out to order the DAG.
    marts = {
        "fct_challenge_verdicts": dbt.ref("fct_challenge_verdicts"),
        "fct_family_deviation": dbt.ref("fct_family_deviation"),
        "fct_combination_difficulty": dbt.ref("fct_combination_difficulty"),
        "fct_api_memorization": dbt.ref("fct_api_memorization"),
        "fct_approach_bias": dbt.ref("fct_approach_bias"),
        "fct_briefing_style_sensitivity": dbt.ref("fct_briefing_style_sensitivity"),
        "fct_challenge_contamination": dbt.ref("fct_challenge_contamination"),
        "fct_challenge_instance_overlap": dbt.ref("fct_challenge_instance_overlap"),
        "fct_string_challenge_unicode_coverage": dbt.ref("fct_string_challenge_unicode_coverage"),
        "fct_briefing_locale_findings": dbt.ref("fct_briefing_locale_findings"),
        "fct_rubric_item_bias": dbt.ref("fct_rubric_item_bias"),
        "fct_test_code_lint": dbt.ref("fct_test_code_lint"),
        "fct_leaderboard": dbt.ref("fct_leaderboard"),
    }
    return validate_marts(
        {name: relation.df() for name, relation in marts.items()},
        suite_names=suite_names,
        thresholds=thresholds,
        severity=str(dbt.config.get("fairness_gate_severity")),
    )
