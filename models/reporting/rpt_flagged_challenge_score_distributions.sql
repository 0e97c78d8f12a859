{#
    The score distribution of every model family on every flagged challenge, compressed to
    one row per distinct score, for the HTML report's box plots (and any BI histogram).
#}
with

verdicts as (
    select * from {{ ref('fct_challenge_verdicts') }}
),

scores_counted as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where verdict_window = 'all'
),

family_effects as (
    select * from {{ ref('fct_family_adjusted_effects') }}
),

flagged_challenges as (
    select
        challenge_id,
        template_id,
        lead_family
    from verdicts
    where verdict = 'flagged'
),

scored_counts as (
    select
        flagged_challenges.challenge_id,
        flagged_challenges.template_id,
        scores_counted.model_family,
        scores_counted.score,
        scores_counted.attempts,
        scores_counted.model_family = flagged_challenges.lead_family as is_lead_family,
        coalesce(family_effects.is_flagged, false) as is_flagged_family
    from flagged_challenges
    inner join scores_counted
        on flagged_challenges.challenge_id = scores_counted.challenge_id
    left join family_effects
        on scores_counted.challenge_id = family_effects.challenge_id
        and scores_counted.model_family = family_effects.model_family
    where scores_counted.score is not null
),

totalled as (
    select
        *,
        sum(attempts) over (partition by challenge_id, model_family) as family_attempts
    from scored_counts
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(model_family as varchar) as model_family,
    cast(score as double) as score,
    cast(attempts as bigint) as attempts,
    cast(family_attempts as bigint) as family_attempts,
    cast(attempts / family_attempts as double) as share_of_family_attempts,
    cast(is_lead_family as boolean) as is_lead_family,
    cast(is_flagged_family as boolean) as is_flagged_family
from totalled
