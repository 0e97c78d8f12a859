"""Print what a build found: flagged challenges and combinations, the gate, rejected rows.

python -m challenge_fairness.summary [DUCKDB_PATH]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from challenge_fairness import leaderboard_report
from challenge_fairness.cli_guard import run_cli, terminal_safe
from challenge_fairness.marts_database import (
    MartsUnavailable,
    connect_read_only,
    existing_tables,
    missing_marts,
    unbuilt_message,
)

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
    "fct_leaderboard",
    "rpt_flagged_challenge_score_distributions",
    "fct_combination_tiers",
    "fct_equivalent_combination_pools",
    "fct_difficulty_adjusted_scores",
)


def _rows(connection: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    return connection.sql(sql).fetchall()


def _dict_rows(connection: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    """Rows as column -> value (a column an older build lacks is simply absent)."""
    relation = connection.sql(sql)
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


REQUIRED = ("fct_challenge_verdicts",)  # without it nothing was built: the summary stops


def summarise(database: Path, schema: str = "main") -> str:
    """The summary text of the marts in `database` (MartsUnavailable when unreadable)."""
    return build_summary(database, schema)[0]


def build_summary(database: Path, schema: str = "main") -> tuple[str, list[str]]:
    """The summary text and the marts it needed but did not find."""
    connection = connect_read_only(database)
    with connection:
        tables = existing_tables(connection, schema)
        unbuilt = missing_marts(tables, REQUIRED)
        if unbuilt:
            raise MartsUnavailable(unbuilt_message(database, schema, unbuilt))
        absent = missing_marts(tables, MARTS)
        lines = [f"Challenge fairness of {database} (schema {schema})"]
        for section in SECTIONS:
            needed = [mart for mart in section.marts if mart not in tables]
            if needed:
                lines.append(f"{section.title}: not built (missing {', '.join(needed)})")
                continue
            lines += section.lines(connection, schema)
    if absent:
        lines.append(
            f"Not built ({len(absent)} marts): {', '.join(absent)}; run the full dbt build "
            "for the complete summary."
        )
    lines.append(f"Marts are tables in {database} (schema {schema}): {', '.join(MARTS)}.")
    # Ids and text come from the data: a control character or newline in them is escaped
    # (cli_guard.terminal_safe), so no value can forge or hide a line of the summary.
    return "\n".join(terminal_safe(line) for line in lines), absent


@dataclass(frozen=True)
class SummarySection:
    """A block of the summary and the marts it reads."""

    title: str
    marts: tuple[str, ...]
    lines: Callable[[duckdb.DuckDBPyConnection, str], list[str]]


BLOCKING_FINDINGS = {"unusable_input": "UNUSABLE INPUT", "suite_error": "SUITE ERROR"}


def blocking_gate_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """The gate's input rules and suites that failed the build whatever the severity
    (fct_fairness_gate_findings), first: the verdicts after them are not to be trusted.
    Nothing when there are none, or when the gate was not built."""
    kinds = ", ".join(f"'{kind}'" for kind in BLOCKING_FINDINGS)
    try:
        rows = _rows(
            connection,
            f"""select finding_kind, check_name, message
            from {schema}.fct_fairness_gate_findings
            where finding_kind in ({kinds}) order by finding_number""",
        )
    except duckdb.Error:  # no gate in this build
        return []
    if not rows:
        return []
    lines = [
        f"THE GATE FAILED THE BUILD ON {len(rows)} INPUT OR SUITE PROBLEM(S), whatever the"
        " severity: fix them before reading the verdicts below"
    ]
    lines += [f"  {BLOCKING_FINDINGS[kind]} [{check}] {message}" for kind, check, message in rows]
    return lines


def _verdict_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """Verdict counts, then every flagged challenge with its evidence."""
    verdicts = _rows(
        connection,
        f"""select verdict, count(*) from {schema}.fct_challenge_verdicts
        group by verdict order by verdict""",
    )
    lines = [
        "Verdicts (ability-adjusted, FDR-controlled): "
        + (", ".join(f"{n} {verdict}" for verdict, n in verdicts) or "no challenges")
    ]
    flagged_verdicts = _rows(
        connection,
        f"""select challenge_id, reason from {schema}.fct_challenge_verdicts
        where verdict = 'flagged' order by q_value, challenge_id""",
    )
    lines += [f"  FLAGGED {c}: {reason}" for c, reason in flagged_verdicts] or ["  none flagged"]
    return lines


def _review_queue_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """This week's review queue (rpt_review_queue): one item per cause, most harmful first."""
    rows = _dict_rows(
        connection,
        f"""select *
        from {schema}.rpt_review_queue where is_latest_week order by priority""",
    )
    if not rows:
        return ["What to do: nothing to review (no findings in the latest scan)"]
    week, scan = rows[0]["week_start"], rows[0]["scan_date"]
    lines = [
        f"What to do (review queue, week of {week}, scan of {scan}): {len(rows)} items, one per"
        " root cause; challenge-level biases first, most harmful first"
    ]
    for row in rows:
        n, challenge_ids = row["challenges"], row["challenge_ids"]
        listed = challenge_ids if n <= 3 else f"{n} challenges: {challenge_ids}"
        label = row["recommended_action"].replace("_", " ").upper()
        label += TIER_NOTES.get(row["priority_tier"], "")
        moves = f"; {row['leaderboard_impact']}" if row.get("leaderboard_impact") else ""
        lines.append(
            f"  {row['priority']}. {label}: {row['cause']} [{listed}; harm"
            f" {row['harm_score']:,.0f}{moves}]"
        )
    return lines


TIER_NOTES = {2: " (platform-level trend)"}


def _combination_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """Variable combinations beyond the threshold."""
    combinations = _rows(
        connection,
        f"""select template_id, variable_combination, deviation, attempts
        from {schema}.fct_combination_difficulty where is_flagged
        order by abs(deviation) desc""",
    )
    lines = [f"Variable combinations beyond the threshold ({len(combinations)}):"]
    lines += [
        f"  template {t} {v}: {d:+.1f} points vs the template mean ({n} attempts)"
        for t, v, d, n in combinations
    ] or ["  none"]
    return lines


def _gate_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """The gate's suites (failures under severity error, warnings under warn) and how many
    root causes their findings come from."""
    gate = _rows(
        connection,
        f"""select suite_name, bool_and(success), sum(failing_rows), max(severity)
        from {schema}.fct_fairness_gate_results group by suite_name order by suite_name""",
    )
    if not gate:
        return ["Great Expectations gate: no suite ran"]
    severities = sorted({sev for _s, _ok, _n, sev in gate})
    failing = [(s, n, sev) for s, ok, n, sev in gate if not ok]
    passed = [s for s, ok, _n, _sev in gate if ok]
    if not failing:
        head = f"all {len(gate)} suites passed"
    elif severities == ["warn"]:
        head = (
            f"severity warn: {len(failing)} of {len(gate)} suites found something, recorded as"
            " warnings; the build went on"
        )
    else:
        head = f"{len(failing)} of {len(gate)} suites FAILED the build (severity error)"
    lines = [f"Great Expectations gate ({head}):"]
    lines += [
        f"  {'WARNING' if sev == 'warn' else 'FAILED'} {s}: {n} failing row{'' if n == 1 else 's'}"
        for s, n, sev in failing
    ]
    if passed:
        lines.append(f"  passed: {', '.join(passed)}")
    try:
        [(findings, causes)] = _rows(
            connection,
            f"""select count(*), count(distinct cause_id)
            from {schema}.fct_fairness_gate_findings where finding_kind = 'fairness_finding'""",
        )
    except duckdb.Error:  # a build from before the findings had causes
        findings = 0
    if findings:
        lines.append(
            f"  {findings} finding(s) from {causes} root cause(s), one entry each in CI"
            " (fct_fairness_gate_findings.cause_id, the review queue's causes)"
        )
    return lines


def _raw_rule_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """The seed's raw per-challenge rules as counts, with what they mean at scale."""
    [(tested, significant)] = _rows(
        connection,
        f"""select count(*) filter (where status = 'tested'),
            count(*) filter (where status = 'tested' and p_value < 0.05)
        from {schema}.fct_family_kruskal_wallis""",
    )
    [(pairs, pair_challenges)] = _rows(
        connection,
        f"""select count(*), count(distinct challenge_id)
        from {schema}.fct_family_effect_sizes where is_flagged""",
    )
    [(deviations, on_flagged)] = _rows(
        connection,
        f"""select count(*), count(*) filter (where verdicts.verdict = 'flagged')
        from {schema}.fct_family_deviation as deviations
        left join {schema}.fct_challenge_verdicts as verdicts
            on deviations.challenge_id = verdicts.challenge_id
        where deviations.is_flagged""",
    )
    return [
        "Raw seed rules (reported for comparison, NOT bias verdicts):",
        f"  Kruskal-Wallis by family: p < 0.05 on {significant} of {tested} tested challenges",
        f"  |Cohen's d| above the threshold: {pairs} family pairs on {pair_challenges} challenges",
        f"  family mean beyond the threshold from the challenge mean: {deviations} (challenge,"
        f" family) pairs, {on_flagged} of them on flagged challenges",
        "  These rules compare raw scores: with thousands of attempts they are expected to fire"
        " wherever families differ in overall skill. The verdicts above adjust for ability and"
        " control false discoveries; act on them, not on these counts.",
    ]


def _source_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """Rows read, kept and rejected per source table, and the rejection reasons."""
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
    lines = ["Source rows (raw = clean + rejected):"]
    lines += [f"  {t}: {r} = {c} + {x}" for t, r, c, x in counts]
    lines += [f"  rejected {t}: {n} x {reason}" for t, reason, n in reasons]
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
        "contaminated challenge": f"""select challenge_id || ': ' || case
                when flag_rule = 'containment' then containment_file_path || ' and '
                    || containment_document_id || ' (' || containment_direction
                    || '), containment ' || printf('%.2f', containment)
                else best_file_path || ' matches ' || best_document_id || ' ('
                    || best_document_source || '), similarity ' || printf('%.2f', similarity)
                    || ' (' || match_level || ')'
            end
            from {schema}.fct_challenge_contamination where is_flagged order by challenge_id""",
        "shared instance code": f"""select challenge_a || ' and ' || challenge_b || ': '
            || case
                when flag_rule = 'containment' then contained_challenge_id || '/'
                    || contained_file_path || ' contained in ' || containing_file_path
                    || ', containment ' || printf('%.2f', containment)
                else 'similarity ' || printf('%.2f', similarity)
            end
            || case when is_same_template then ' (same template)' else '' end
            from {schema}.fct_challenge_instance_overlap order by challenge_a, challenge_b""",
        "IRT": f"""select fit_status || ': ' || count(*) || ' challenges, median discrimination '
            || coalesce(printf('%.2f', median(discrimination)), 'n/a')
            from {schema}.fct_challenge_irt group by fit_status order by fit_status""",
    }
    for label, sql in findings.items():
        found = [row[0] for row in _rows(connection, sql)]
        lines += [f"  {label}: {text}" for text in found] or [f"  {label}: nothing found"]
    return lines + _clustering_conclusion(connection, schema)


DETECTOR_MARTS = (
    "fct_detector_coverage",
    "fct_briefing_style_sensitivity",
    "fct_experiment_results",
    "fct_api_memorization",
    "fct_test_case_bias",
    "fct_string_challenge_unicode_coverage",
    "fct_approach_bias",
    "fct_challenge_contamination",
    "fct_challenge_instance_overlap",
    "fct_challenge_irt",
    "fct_family_clustering",
)


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
            changed_family, changed_family_effect_before, changed_family_effect_after,
            new_families
        from {schema}.fct_challenge_verdict_history where is_drift or is_fixed
        order by window_start, challenge_id""",
    )
    lines += [
        f"  {kind} {challenge} in window {start}: family {family} "
        f"{_effect_text(before, 'no attempts before')} -> {_effect_text(after, 'no attempts now')}"
        + (f" (new families: {new})" if new else "")
        for kind, challenge, start, family, before, after, new in changes
    ] or ["  no drifts or fixes"]
    return lines


def _effect_text(effect: float | None, missing: str) -> str:
    """An adjusted effect in points, or what its absence means."""
    return missing if effect is None else f"{effect:+.1f} points"


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


def _clustering_conclusion(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """What the family clustering means, in one line."""
    rows = _rows(
        connection,
        f"""select status, is_flagged, is_significant, mean_silhouette, silhouette_threshold,
            p_value, agents_analysed, reason
        from {schema}.fct_family_clustering""",
    )
    lines = []
    for status, flagged, significant, silhouette, threshold, p, agents, reason in rows:
        if status != "tested":
            lines.append(f"  family clustering: not tested ({reason or status})")
            continue
        measured = f"mean silhouette {silhouette:.2f}, permutation p = {p:.3g}, {agents} agents"
        if flagged:
            verdict = (
                "FLAGGED: agents of a family share a score profile beyond their skill, so some"
                " challenges favour whole families; read the flagged challenges family by family"
            )
        elif significant:
            verdict = (
                f"families differ a little but do not form separate clusters (silhouette below"
                f" {threshold:g}): no family-wide pattern; the biases found are challenge-specific"
            )
        else:
            verdict = "agents do not group by family: no family-wide pattern across challenges"
        lines.append(f"  family clustering: {verdict} ({measured})")
    return lines or ["  family clustering: nothing found"]


SECTIONS = (
    SummarySection("Gate input", (), blocking_gate_lines),
    SummarySection("Verdicts", ("fct_challenge_verdicts",), _verdict_lines),
    SummarySection("What to do", ("rpt_review_queue",), _review_queue_lines),
    SummarySection("Leaderboard", ("fct_leaderboard",), leaderboard_report.summary_lines),
    SummarySection(
        "Verdict history",
        ("fct_challenge_verdict_history", "rpt_platform_fairness_score"),
        lambda connection, schema: _history_lines(connection, schema),
    ),
    SummarySection("Variable combinations", ("fct_combination_difficulty",), _combination_lines),
    SummarySection(
        "Combination remedies",
        ("fct_combination_tiers", "fct_equivalent_combination_pools"),
        lambda connection, schema: _remedy_lines(connection, schema),
    ),
    SummarySection(
        "Other detectors",
        DETECTOR_MARTS,
        lambda connection, schema: _detector_lines(connection, schema),
    ),
    SummarySection(
        "Briefing and rubric audit",
        (
            "fct_briefing_locale_findings",
            "fct_briefing_domain_assumptions",
            "fct_rubric_item_bias",
            "fct_rubric_style_lint",
        ),
        lambda connection, schema: audit_lines(connection, schema),
    ),
    SummarySection("Great Expectations gate", ("fct_fairness_gate_results",), _gate_lines),
    SummarySection(
        "Raw seed rules",
        (
            "fct_family_kruskal_wallis",
            "fct_family_effect_sizes",
            "fct_family_deviation",
            "fct_challenge_verdicts",
        ),
        _raw_rule_lines,
    ),
    SummarySection("Source rows", ("fct_source_row_counts", "fct_rejected_rows"), _source_lines),
)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: 0 when complete, 1 when some marts are missing, 2 when the
    database cannot be read or holds no built marts."""
    parser = argparse.ArgumentParser(prog="python -m challenge_fairness.summary")
    parser.add_argument("database", nargs="?", default="challenge_fairness.duckdb")
    parser.add_argument("--schema", default="main")
    args = parser.parse_args(argv)
    database = Path(args.database)

    def body() -> int:
        text, absent = build_summary(database, args.schema)
        print(text)
        return 1 if absent else 0

    return run_cli("challenge_fairness.summary", "read the marts", body, database)


if __name__ == "__main__":
    sys.exit(main())
