with

verdict_history as (
    select * from {{ ref('fct_challenge_verdict_history') }}
),

fairness_scores as (
    select * from {{ ref('rpt_platform_fairness_score') }}
),

items as (
    select
        verdict_history.*,
        case
            when verdict_history.is_fixed then 'fixed'
            when verdict_history.previous_decided_verdict = 'flagged' then 'still_flagged'
            else 'newly_flagged'
        end as item_status
    from verdict_history
    where verdict_history.verdict = 'flagged'
        or verdict_history.is_fixed
),

reported as (
    select
        items.window_start,
        items.window_end,
        items.challenge_id,
        items.template_id,
        items.item_status,
        items.lead_family,
        items.lead_adjusted_deviation,
        items.lead_ci_low,
        items.lead_ci_high,
        items.q_value,
        items.reason,
        items.new_families,
        items.changed_family,
        items.changed_family_effect_before,
        items.changed_family_effect_after,
        fairness_scores.platform_fairness_score
    from items
    inner join fairness_scores
        on items.window_start = fairness_scores.window_start
)

select
    cast(window_start as date) as window_start,
    cast(window_end as date) as window_end,
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(item_status as varchar) as item_status,
    cast(lead_family as varchar) as lead_family,
    cast(lead_adjusted_deviation as double) as lead_adjusted_deviation,
    cast(lead_ci_low as double) as lead_ci_low,
    cast(lead_ci_high as double) as lead_ci_high,
    cast(q_value as double) as q_value,
    cast(reason as varchar) as reason,
    cast(new_families as varchar) as new_families,
    cast(changed_family as varchar) as changed_family,
    cast(changed_family_effect_before as double) as changed_family_effect_before,
    cast(changed_family_effect_after as double) as changed_family_effect_after,
    cast(platform_fairness_score as double) as platform_fairness_score
from reported
