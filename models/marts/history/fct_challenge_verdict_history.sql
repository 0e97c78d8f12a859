with

windows as (
    select * from {{ ref('int_verdict_windows_spined') }}
),

decided as (
    select * from {{ ref('int_challenge_verdicts_decided') }}
    where verdict_window <> 'all'
),

family_effects as (
    select * from {{ ref('int_family_effects_flagged') }}
    where verdict_window <> 'all'
),

window_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where verdict_window <> 'all'
),

verdict_rules as (
    select
        decided.*,
        windows.window_start,
        windows.window_end,
        windows.window_grain
    from decided
    inner join windows
        on decided.verdict_window = windows.verdict_window
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
        new_families_listed.new_families,
        {{ previous_value_ignoring_nulls(
            "case when verdict_rules.verdict in ('pass', 'flagged') then verdict_rules.verdict end",
            ['verdict_rules.challenge_id'],
            'verdict_rules.window_start'
        ) }} as previous_decided_verdict,
        {{ previous_value_ignoring_nulls(
            "case when verdict_rules.verdict in ('pass', 'flagged') then verdict_rules.window_start end",
            ['verdict_rules.challenge_id'],
            'verdict_rules.window_start'
        ) }} as previous_decided_window_start,
        verdict_rules.window_start = max(verdict_rules.window_start) over () as is_latest_window
    from verdict_rules
    left join new_families_listed
        on verdict_rules.challenge_id = new_families_listed.challenge_id
        and verdict_rules.window_start = new_families_listed.window_start
),

changes_marked as (
    select
        *,
        verdict = 'flagged' and previous_decided_verdict = 'pass' as is_drift,
        verdict = 'pass' and previous_decided_verdict = 'flagged' as is_fixed
    from sequenced
),

{#- The family whose bias changed: for a drift the family flagged now (this window's lead
    family); for a fix the family that was flagged in the previous decided window (that
    window's lead family), not this window's lead family, which is merely the one closest
    to the threshold among passing families. Its effects before (previous decided window)
    and after (this window) come from the per-window family effects. #}
changed_families as (
    select
        changes_marked.challenge_id,
        changes_marked.window_start,
        changes_marked.verdict_window,
        previous_window.verdict_window as previous_decided_verdict_window,
        case
            when changes_marked.is_drift then changes_marked.lead_family
            else previous_window.lead_family
        end as changed_family
    from changes_marked
    inner join sequenced as previous_window
        on changes_marked.challenge_id = previous_window.challenge_id
        and changes_marked.previous_decided_window_start = previous_window.window_start
    where changes_marked.is_drift or changes_marked.is_fixed
),

changed_family_effects as (
    select
        changed_families.challenge_id,
        changed_families.window_start,
        changed_families.changed_family,
        effect_before.adjusted_deviation as changed_family_effect_before,
        effect_after.adjusted_deviation as changed_family_effect_after
    from changed_families
    inner join changes_marked
        on changed_families.challenge_id = changes_marked.challenge_id
        and changed_families.window_start = changes_marked.window_start
    left join family_effects as effect_before
        on changed_families.challenge_id = effect_before.challenge_id
        and changed_families.changed_family = effect_before.model_family
        and changed_families.previous_decided_verdict_window = effect_before.verdict_window
    left join family_effects as effect_after
        on changed_families.challenge_id = effect_after.challenge_id
        and changed_families.changed_family = effect_after.model_family
        and changed_families.verdict_window = effect_after.verdict_window
),

explained as (
    select
        changes_marked.*,
        changed_family_effects.changed_family,
        changed_family_effects.changed_family_effect_before,
        changed_family_effects.changed_family_effect_after,
        case
            when changes_marked.attempts = 0
                then
                    'no scored attempts in this window (min_attempts = {{ var("min_attempts") }})'
            else changes_marked.reason
        end as window_reason
    from changes_marked
    left join changed_family_effects
        on changes_marked.challenge_id = changed_family_effects.challenge_id
        and changes_marked.window_start = changed_family_effects.window_start
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
    cast(previous_decided_window_start as date) as previous_decided_window_start,
    cast(changed_family as varchar) as changed_family,
    cast(changed_family_effect_before as double) as changed_family_effect_before,
    cast(changed_family_effect_after as double) as changed_family_effect_after,
    cast(is_latest_window as boolean) as is_latest_window
from explained
