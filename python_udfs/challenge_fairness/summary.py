"""Print what a build found: flagged challenges and combinations, the gate, rejected rows.

python -m challenge_fairness.summary [DUCKDB_PATH]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

MARTS = (
    "fct_challenge_verdicts",
    "fct_family_adjusted_effects",
    "fct_family_pairwise_dunn",
    "fct_family_deviation",
    "fct_combination_difficulty",
    "fct_family_kruskal_wallis",
    "fct_family_effect_sizes",
    "fct_fairness_gate_results",
    "fct_rejected_rows",
    "fct_source_row_counts",
    "fct_detector_coverage",
    "fct_briefing_style_sensitivity",
    "fct_experiment_results",
    "fct_challenge_irt",
    "fct_agent_irt_ability",
    "fct_api_memorization",
    "fct_api_memorization_challenges",
    "fct_test_case_bias",
    "fct_test_case_family_dif",
    "fct_string_challenge_unicode_coverage",
    "fct_approach_bias",
    "fct_family_clustering",
    "fct_agent_score_map",
    "fct_challenge_contamination",
    "fct_challenge_instance_overlap",
    "fct_contamination_family_evidence",
    "fct_contamination_publication_effect",
    # F6 briefing and rubric audit
    "fct_briefing_locale_findings",
    "fct_briefing_domain_assumptions",
    "fct_rubric_item_bias",
    "fct_rubric_style_lint",
    # F4 history, reporting and remedies
    "fct_challenge_verdict_history",
    "rpt_platform_fairness_score",
    "rpt_monthly_bias_report",
    "rpt_daily_bias_scan",
    "rpt_review_queue",
    "rpt_flagged_challenge_score_distributions",
    "fct_combination_tiers",
    "fct_equivalent_combination_pools",
    "fct_difficulty_adjusted_scores",
)


def _rows(connection: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    return connection.sql(sql).fetchall()


def summarise(database: Path, schema: str = "main") -> str:
    """The summary text of the marts in `database`."""
    lines: list[str] = []
    with duckdb.connect(str(database), read_only=True) as connection:
        verdicts = _rows(
            connection,
            f"""select verdict, count(*) from {schema}.fct_challenge_verdicts
            group by verdict order by verdict""",
        )
        lines.append(
            "Verdicts (ability-adjusted, FDR-controlled): "
            + ", ".join(f"{n} {verdict}" for verdict, n in verdicts)
        )
        flagged_verdicts = _rows(
            connection,
            f"""select challenge_id, reason from {schema}.fct_challenge_verdicts
            where verdict = 'flagged' order by q_value, challenge_id""",
        )
        lines += [f"  FLAGGED {c}: {reason}" for c, reason in flagged_verdicts] or [
            "  none flagged"
        ]

        flagged = _rows(
            connection,
            f"""select challenge_id, model_family, deviation, attempts, challenge_attempts
            from {schema}.fct_family_deviation where is_flagged
            order by abs(deviation) desc""",
        )
        lines.append(f"Raw rule: family deviations beyond the threshold ({len(flagged)}):")
        lines += [
            f"  challenge {c}: family {f} {d:+.1f} points ({n} of {total} scored attempts)"
            for c, f, d, n, total in flagged
        ] or ["  none"]

        combinations = _rows(
            connection,
            f"""select template_id, variable_combination, deviation, attempts
            from {schema}.fct_combination_difficulty where is_flagged
            order by abs(deviation) desc""",
        )
        lines.append(f"Variable combinations beyond the threshold ({len(combinations)}):")
        lines += [
            f"  template {t} {v}: {d:+.1f} points vs the template mean ({n} attempts)"
            for t, v, d, n in combinations
        ] or ["  none"]

        statuses = _rows(
            connection,
            f"""select status, count(*), count(*) filter (where p_value < 0.05)
            from {schema}.fct_family_kruskal_wallis group by status order by status""",
        )
        lines.append("Kruskal-Wallis by family (reported, not gating):")
        lines += [f"  {s}: {n} challenges, {p} with p < 0.05" for s, n, p in statuses]
        (large,) = _rows(
            connection,
            f"select count(*) from {schema}.fct_family_effect_sizes where is_flagged",
        )
        lines.append(f"Family pairs with |Cohen's d| above the threshold (reported): {large[0]}")

        lines += _detector_lines(connection, schema)
        lines += audit_lines(connection, schema)

        gate = _rows(
            connection,
            f"""select suite_name, success, failing_rows, severity
            from {schema}.fct_fairness_gate_results order by suite_name""",
        )
        lines.append("Great Expectations gate:")
        lines += [
            f"  {s}: {'passed' if ok else f'FAILED on {n} rows'} (severity {sev})"
            for s, ok, n, sev in gate
        ]

        lines += _history_lines(connection, schema)
        lines += _review_queue_lines(connection, schema)
        lines += _remedy_lines(connection, schema)

        counts = _rows(
            connection,
            f"""select source_table, raw_rows, clean_rows, rejected_rows
            from {schema}.fct_source_row_counts order by source_table""",
        )
        reasons = _rows(
            connection,
            f"""select source_table, rejection_reason, count(*) from {schema}.fct_rejected_rows
            group by all order by all""",
        )
        lines.append("Source rows (raw = clean + rejected):")
        lines += [f"  {t}: {r} = {c} + {x}" for t, r, c, x in counts]
        lines += [f"  rejected {t}: {n} x {reason}" for t, reason, n in reasons]

    lines.append(f"Marts are tables in {database} (schema {schema}): {', '.join(MARTS)}.")
    return "\n".join(lines)


def _review_queue_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """This week's review queue (rpt_review_queue): what to fix, why, and what to do."""
    rows = _rows(
        connection,
        f"""select priority, challenge_id, recommended_action, detectors, week_start, scan_date
        from {schema}.rpt_review_queue where is_latest_week order by priority""",
    )
    if not rows:
        return ["Review queue: nothing to review (no findings in the latest scan)"]
    week, scan = rows[0][4], rows[0][5]
    lines = [f"Review queue, week of {week} (scan of {scan}): {len(rows)} challenges"]
    lines += [
        f"  {p}. {c}: {action.upper()} [{detectors}]" for p, c, action, detectors, _w, _s in rows
    ]
    return lines


def _remedy_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """Combination remedies: tiers away from standard, and each template's recommended pool."""
    tiers = _rows(
        connection,
        f"""select template_id, variable_combination, combination_difficulty, tier_label
        from {schema}.fct_combination_tiers
        where status = 'measured' and difficulty_band <> 0
        order by template_id, combination_difficulty""",
    )
    pools = _rows(
        connection,
        f"""select template_id, any_value(pool_id), any_value(pool_size), any_value(pool_range)
        from {schema}.fct_equivalent_combination_pools where is_recommended_pool
        group by template_id order by template_id""",
    )
    lines = ["Combination remedies (ability-adjusted difficulty):"]
    lines += [f"  tier: {t} {v}: {d:+.1f} points ({label})" for t, v, d, label in tiers] or [
        "  tier: every measured combination is in its template's standard tier"
    ]
    lines += [
        f"  recommended pool: {t}: {pool} ({n} combinations within {span:.1f} points)"
        for t, pool, n, span in pools
    ]
    return lines


def _detector_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """What each further detector found (or which inputs it lacked)."""
    lines = ["Other detectors:"]
    coverage = _rows(
        connection,
        f"""select detector, missing_inputs from {schema}.fct_detector_coverage
        where not is_available order by detector""",
    )
    lines += [f"  {d}: not run, missing {missing}" for d, missing in coverage]
    findings = {
        "briefing style": f"""select 'template ' || template_id || ' ' || variable_combination
            || ': ' || reason from {schema}.fct_briefing_style_sensitivity
            where is_flagged and is_recommended_style order by template_id, variable_combination""",
        "A/B experiment": f"""select experiment_id || ' ' || upper(verdict) || ': ' || reason
            from {schema}.fct_experiment_results order by experiment_id""",
        "API memorisation": f"""select 'api:' || api_name || ' scores rise '
            || printf('%+.2f', slope_difference) || ' points per year of training cutoff beyond'
            || ' the control trend (CI ' || printf('%+.2f', ci_low) || ' to '
            || printf('%+.2f', ci_high) || ', q = ' || printf('%.2g', q_value) || ')'
            from {schema}.fct_api_memorization where is_flagged order by api_name""",
        "test case to review": f"""select test_case_id || ' (' || challenge_id || '): ' || reason
            from {schema}.fct_test_case_bias where is_review_recommended order by test_case_id""",
        "Unicode coverage": f"""select challenge_id || ': ' || reason
            from {schema}.fct_string_challenge_unicode_coverage
            where not is_fully_covered order by challenge_id""",
        "approach bias": f"""select challenge_id || ': ' || approach_a || ' vs ' || approach_b
            || ' ' || printf('%+.1f', stratified_gap) || ' points within families (CI '
            || printf('%+.1f', ci_low) || ' to ' || printf('%+.1f', ci_high) || '; naive gap '
            || printf('%+.1f', naive_gap) || ')'
            from {schema}.fct_approach_bias where is_flagged order by challenge_id""",
        "contaminated challenge": f"""select challenge_id || ': ' || best_file_path || ' matches '
            || best_document_id || ' (' || best_document_source || '), similarity '
            || printf('%.2f', similarity) || ' (' || match_level || ')'
            from {schema}.fct_challenge_contamination where is_flagged order by challenge_id""",
        "shared instance code": f"""select challenge_a || ' and ' || challenge_b || ': similarity '
            || printf('%.2f', similarity)
            || case when is_same_template then ' (same template)' else '' end
            from {schema}.fct_challenge_instance_overlap order by challenge_a, challenge_b""",
        "family clustering": f"""select case when is_flagged then 'FLAGGED ' else '' end
            || status || ': mean silhouette ' || coalesce(printf('%.2f', mean_silhouette), 'n/a')
            || ', permutation p = ' || coalesce(printf('%.3g', p_value), 'n/a')
            || ' over ' || agents_analysed || ' agents'
            from {schema}.fct_family_clustering""",
        "IRT": f"""select fit_status || ': ' || count(*) || ' challenges, median discrimination '
            || coalesce(printf('%.2f', median(discrimination)), 'n/a')
            from {schema}.fct_challenge_irt group by fit_status order by fit_status""",
    }
    for label, sql in findings.items():
        found = [row[0] for row in _rows(connection, sql)]
        lines += [f"  {label}: {text}" for text in found] or [f"  {label}: nothing found"]
    return lines


# --- Verdict history (F4): drifts, fixes and the latest platform fairness score ---------
HISTORY_MARTS = (
    "fct_challenge_verdict_history",
    "rpt_platform_fairness_score",
    "rpt_monthly_bias_report",
)


def _history_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """Drifts and fixes over the verdict history, and the latest window's fairness score."""
    (present,) = _rows(
        connection,
        f"""select count(*) from information_schema.tables
        where table_schema = '{schema}' and table_name = 'fct_challenge_verdict_history'""",
    )
    if not present[0]:
        return []
    grain = _rows(
        connection, f"select any_value(window_grain) from {schema}.fct_challenge_verdict_history"
    )
    lines = [f"Verdict history (by {grain[0][0] or 'window'}): {', '.join(HISTORY_MARTS)}"]
    latest = _rows(
        connection,
        f"""select window_start, platform_fairness_score, passing_challenges,
            eligible_challenges, flagged_challenges, uncertain_challenges, score_change
        from {schema}.rpt_platform_fairness_score order by window_start desc limit 1""",
    )
    for start, score, passing, eligible, flagged, uncertain, change in latest:
        shown = "n/a" if score is None else f"{score:.2f}"
        delta = "" if change is None else f"; change {change:+.2f}"
        lines.append(
            f"  platform fairness score {start}: {shown} ({passing} of {eligible} eligible "
            f"challenges pass, {flagged} flagged, {uncertain} uncertain{delta})"
        )
    changes = _rows(
        connection,
        f"""select case when is_drift then 'DRIFT' else 'FIXED' end, challenge_id, window_start,
            lead_family, lead_adjusted_deviation, new_families
        from {schema}.fct_challenge_verdict_history where is_drift or is_fixed
        order by window_start, challenge_id""",
    )
    lines += [
        f"  {kind} {challenge} in window {start}: family {family} {effect:+.1f} points"
        + (f" (new families: {new})" if new else "")
        for kind, challenge, start, family, effect, new in changes
    ] or ["  no drifts or fixes"]
    return lines


# --- F6 briefing and rubric audit --------------------------------------------------------------


def audit_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """What the briefing and rubric audit found: locale findings, domain assumptions,
    flagged rubric items with their description and style lint."""
    lines = ["Briefing and rubric audit:"]
    findings = {
        "locale finding": f"""select challenge_id || ': ' || rule_id || ' "' || matched_text
            || '" at ' || match_position
            || case when needs_review then ' (competitive, unreviewed)'
                    when is_reviewed then ' (reviewed: ' || review_decision || ')' else '' end
            || '; suggested: ' || suggested_neutral_form
            from {schema}.fct_briefing_locale_findings
            order by challenge_id, match_position, rule_id""",
        "domain assumption": f"""select challenge_id || ': ' || term_id || ' (' || domain
            || ') "' || matched_text || '" at ' || match_position || ' without definition'
            from {schema}.fct_briefing_domain_assumptions where is_flagged
            order by challenge_id, term_id""",
        "rubric item to review": f"""select rubric_item_id || ' (' || challenge_id || ') "'
            || coalesce(description, '') || '": ' || reason
            || coalesce('; style lint: ' || style_rule_ids, '')
            from {schema}.fct_rubric_item_bias where is_flagged order by rubric_item_id""",
        "rubric style wording": f"""select rubric_item_id || ': ' || rule_id || ' "'
            || matched_text || '"' from {schema}.fct_rubric_style_lint
            order by rubric_item_id, match_position""",
    }
    for label, sql in findings.items():
        found = [row[0] for row in _rows(connection, sql)]
        lines += [f"  {label}: {text}" for text in found] or [f"  {label}: nothing found"]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m challenge_fairness.summary")
    parser.add_argument("database", nargs="?", default="challenge_fairness.duckdb")
    parser.add_argument("--schema", default="main")
    args = parser.parse_args(argv)
    print(summarise(Path(args.database), args.schema))
    return 0


if __name__ == "__main__":
    sys.exit(main())
