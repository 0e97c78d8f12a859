{#
    One row per (verdict window, challenge, model family with scored attempts) where the
    challenge's verdict is 'insufficient_evidence': window 'all' for the all-time verdict
    (fct_challenge_verdicts), else the window's verdict of the history. How many more
    scored attempts would settle it: macros/fairness/fairness_attempts_needed.sql.
#}
with

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
),

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
),

verdicts as (
    select * from {{ ref('int_challenge_verdicts_decided') }}
),

windows as (
    select * from {{ ref('int_verdict_windows_spined') }}
),

needed as (
    {{ fairness_attempts_needed(
        'cells', 'abilities', 'challenges_tested', 'verdicts', ['verdict_window']
    ) }}
),

windowed as (
    select
        needed.*,
        windows.window_start
    from needed
    left join windows
        on needed.verdict_window = windows.verdict_window
),

described as (
    select
        *,
        case
            when family_plan_status = 'already_powered'
                then 'family ' || model_family || ' already has the attempts: its contrast has '
                    || {{ format_number('100 * current_power', '%.0f') }} || '% power'
            when additional_family_attempts is not null
                then 'collect about ' || cast(additional_family_attempts as bigint)
                    || ' more scored attempts from family ' || model_family
            when family_attempts_in_challenge_plan > 0
                then 'family ' || model_family || ' alone cannot settle it: collect about '
                    || cast(family_attempts_in_challenge_plan as bigint)
                    || ' more from it as part of the challenge plan'
        end as recommendation
    from windowed
)

select
    cast(verdict_window as varchar) as verdict_window,
    cast(window_start as date) as window_start,
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(verdict as varchar) as verdict,
    cast(eligibility as varchar) as eligibility,
    cast(model_family as varchar) as model_family,
    cast(scored_attempts as bigint) as scored_attempts,
    cast(cell_variance as double) as cell_variance,
    cast(ability_variance as double) as ability_variance,
    cast(fdr_level as double) as fdr_level,
    cast({{ var('family_deviation_threshold') }} as double) as detectable_shift,
    cast({{ var('target_power') }} as double) as target_power,
    cast(current_power as double) as current_power,
    cast(additional_family_attempts as bigint) as additional_family_attempts,
    cast(family_plan_status as varchar) as family_plan_status,
    cast(family_attempts_in_challenge_plan as bigint) as family_attempts_in_challenge_plan,
    cast(challenge_plan_family_attempts as bigint) as challenge_plan_family_attempts,
    cast(challenge_additional_attempts as bigint) as challenge_additional_attempts,
    cast(challenge_plan_status as varchar) as challenge_plan_status,
    cast(challenge_plan_reason as varchar) as challenge_plan_reason,
    cast(recommendation as varchar) as recommendation
from described
