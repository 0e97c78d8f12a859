{#
    The weekly review queue, from the scan history: for each week, the latest scan filed in
    it; one row per challenge with findings in that scan, its recommended action and the
    priority to work on it in.
#}
with

scans as (
    select * from {{ ref('rpt_daily_bias_scan') }}
),

weekly_scans as (
    select
        *,
        cast(date_trunc('week', scan_date) as date) as week_start
    from scans
),

latest_scans_per_week as (
    select
        week_start,
        max(scan_date) as scan_date
    from weekly_scans
    group by week_start
),

week_findings as (
    select weekly_scans.*
    from weekly_scans
    inner join latest_scans_per_week
        on weekly_scans.week_start = latest_scans_per_week.week_start
        and weekly_scans.scan_date = latest_scans_per_week.scan_date
),

{#- The decisive finding of a challenge: the action that comes first (retire_challenge,
    fix_tests, fix_rubric, fix_briefing, rebalance_combinations), then the finding farthest
    beyond its threshold, then the smallest q. #}
ranked_findings as (
    select
        *,
        row_number() over (
            partition by week_start, challenge_id
            order by
                action_precedence,
                severity desc nulls last,
                q_value asc nulls last,
                detector,
                finding_id
        ) as finding_rank
    from week_findings
),

challenge_summaries as (
    select
        week_start,
        challenge_id,
        max(scan_date) as scan_date,
        max(template_id) as template_id,
        max(verdict) as verdict,
        count(*) as findings,
        count(*) filter (where is_new) as new_findings,
        string_agg(distinct detector, ', ' order by detector) as detectors,
        max(severity) as max_severity,
        min(q_value) as min_q_value,
        max(case when finding_rank = 1 then recommended_action end) as recommended_action,
        max(case when finding_rank = 1 then action_reason end) as action_reason,
        max(case when finding_rank = 1 then detector end) as lead_detector,
        max(case when finding_rank = 1 then finding_id end) as lead_finding_id,
        max(case when finding_rank = 1 then model_family end) as lead_model_family,
        max(case when finding_rank = 1 then evidence end) as lead_evidence
    from ranked_findings
    group by week_start, challenge_id
),

first_scans as (
    select
        challenge_summaries.week_start,
        challenge_summaries.challenge_id,
        min(scans.scan_date) as first_scan_date
    from challenge_summaries
    inner join scans
        on challenge_summaries.challenge_id = scans.challenge_id
        and scans.scan_date <= challenge_summaries.scan_date
    group by challenge_summaries.week_start, challenge_summaries.challenge_id
),

{#- Priority within the week: challenges whose verdict is flagged first (they bias the
    leaderboard now; not those whose bias was fixed since, action confirm_fix), then the finding farthest beyond its threshold, then the smallest q,
    then the most findings. #}
prioritised as (
    select
        challenge_summaries.*,
        first_scans.first_scan_date,
        coalesce(challenge_summaries.verdict = 'flagged', false) as is_verdict_flagged,
        row_number() over (
            partition by challenge_summaries.week_start
            order by
                coalesce(challenge_summaries.verdict = 'flagged', false)
                    and challenge_summaries.recommended_action <> 'confirm_fix' desc,
                challenge_summaries.max_severity desc nulls last,
                challenge_summaries.min_q_value asc nulls last,
                challenge_summaries.findings desc,
                challenge_summaries.challenge_id
        ) as priority,
        challenge_summaries.week_start
            = max(challenge_summaries.week_start) over () as is_latest_week
    from challenge_summaries
    inner join first_scans
        on challenge_summaries.week_start = first_scans.week_start
        and challenge_summaries.challenge_id = first_scans.challenge_id
)

select
    cast(week_start as date) as week_start,
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(priority as bigint) as priority,
    cast(recommended_action as varchar) as recommended_action,
    cast(action_reason as varchar) as action_reason,
    cast(detectors as varchar) as detectors,
    cast(findings as bigint) as findings,
    cast(lead_evidence as varchar) as lead_evidence,
    cast(verdict as varchar) as verdict,
    cast(scan_date as date) as scan_date,
    cast(lead_detector as varchar) as lead_detector,
    cast(lead_finding_id as varchar) as lead_finding_id,
    cast(lead_model_family as varchar) as lead_model_family,
    cast(is_verdict_flagged as boolean) as is_verdict_flagged,
    cast(max_severity as double) as max_severity,
    cast(min_q_value as double) as min_q_value,
    cast(new_findings as bigint) as new_findings,
    cast(first_scan_date as date) as first_scan_date,
    cast(is_latest_week as boolean) as is_latest_week
from prioritised
