with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

windows as (
    select * from {{ ref('int_verdict_windows_spined') }}
),

challenges_tested as (
    select * from {{ ref('int_window_challenges_tested') }}
),

family_effects as (
    select * from {{ ref('int_window_family_effects_flagged') }}
),

window_counts as (
    select * from {{ ref('int_window_attempt_scores_counted') }}
    where window_start is not null
),

verdict_rules as (
    {{ fairness_challenge_verdicts(
        'challenges', 'challenges_tested', 'family_effects', ['window_start']
    ) }}
),

family_arrivals as (
    select
        challenge_id,
        model_family,
        min(window_start) as first_window_start
    from window_counts
    group by challenge_id, model_family
),

new_families_listed as (
    select
        challenge_id,
        first_window_start as window_start,
        string_agg(model_family, ',' order by model_family) as new_families
    from family_arrivals
    group by challenge_id, first_window_start
),

sequenced as (
    select
        verdict_rules.*,
        windows.window_end,
        windows.window_grain,
        new_families_listed.new_families,
        {{ previous_value_ignoring_nulls(
            "case when verdict_rules.verdict in ('pass', 'flagged') then verdict_rules.verdict end",
            ['verdict_rules.challenge_id'],
            'verdict_rules.window_start'
        ) }} as previous_decided_verdict,
        verdict_rules.window_start = max(verdict_rules.window_start) over () as is_latest_window
    from verdict_rules
    inner join windows
        on verdict_rules.window_start = windows.window_start
    left join new_families_listed
        on verdict_rules.challenge_id = new_families_listed.challenge_id
        and verdict_rules.window_start = new_families_listed.window_start
),

explained as (
    select
        *,
        verdict = 'flagged' and previous_decided_verdict = 'pass' as is_drift,
        verdict = 'pass' and previous_decided_verdict = 'flagged' as is_fixed,
        case
            when attempts = 0 then
                'no scored attempts in this window (min_attempts = {{ var("min_attempts") }})'
            else reason
        end as window_reason
    from sequenced
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(window_start as date) as window_start,
    cast(window_end as date) as window_end,
    cast(window_grain as varchar) as window_grain,
    cast(verdict as varchar) as verdict,
    cast(window_reason as varchar) as reason,
    cast(attempts as bigint) as attempts,
    cast(families as bigint) as families,
    cast(coalesce(flagged_families, 0) as bigint) as flagged_families,
    cast(lead_family as varchar) as lead_family,
    cast(lead_adjusted_deviation as double) as lead_adjusted_deviation,
    cast(lead_ci_low as double) as lead_ci_low,
    cast(lead_ci_high as double) as lead_ci_high,
    cast(interval_level as double) as interval_level,
    cast(p_value as double) as p_value,
    cast(q_value as double) as q_value,
    cast(eligibility = 'tested' as boolean) as is_tested,
    cast(previous_decided_verdict as varchar) as previous_decided_verdict,
    cast(coalesce(is_drift, false) as boolean) as is_drift,
    cast(coalesce(is_fixed, false) as boolean) as is_fixed,
    cast(new_families as varchar) as new_families,
    cast(is_latest_window as boolean) as is_latest_window
from explained
