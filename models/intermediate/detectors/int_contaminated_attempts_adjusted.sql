{#
    One row per scored attempt on a contaminated (flagged) challenge whose first matching
    document has a publication date: the attempt's score adjusted for its model's ability,
    and whether the model was trained after the publication.

    Ability is measured against difficulty and leaves this challenge out: residual =
    score - the challenge's mean score, averaged over the model's scored attempts on its
    other challenges. Adjusted score = score - that ability. A model is 'post_publication'
    when its training_cutoff is after the document's first publication date (it may have
    seen the code), 'pre_publication' when on or before it, 'unknown' without a cutoff.
#}
with

agent_cells as (
    select * from {{ ref('int_agent_challenge_scores_summarised') }}
),

contamination as (
    select * from {{ ref('int_challenge_contamination_scored') }}
    where is_flagged and first_published_at is not null
),

{# Only the attempts of flagged challenges are read at attempt grain (none on most platforms). #}
attempts as (
    select * from {{ ref('int_keyed__attempts') }}
    where is_scored
        and challenge_id in (select contamination.challenge_id from contamination)
),

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

attempts_modelled as (
    select
        attempts.attempt_id,
        attempts.challenge_id,
        attempts.score,
        models.model_id,
        models.model_family,
        models.training_cutoff
    from attempts
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
),

{# The abilities come from the (challenge, agent) score sums, not from the attempts; the
   floating sums run in a fixed order (agent, challenge): the same bits on every build. #}
challenge_means as (
    select
        challenge_id,
        sum(score_sum order by agent_id) / sum(scored_attempts) as challenge_mean
    from agent_cells
    group by challenge_id
),

model_cells as (
    select
        agent_cells.model_id,
        agent_cells.challenge_id,
        sum(agent_cells.scored_attempts) as attempts,
        sum(agent_cells.score_sum order by agent_cells.agent_id)
        - sum(agent_cells.scored_attempts) * any_value(challenge_means.challenge_mean)
            as residual_sum
    from agent_cells
    inner join challenge_means
        on agent_cells.challenge_id = challenge_means.challenge_id
    group by agent_cells.model_id, agent_cells.challenge_id
),

model_totals as (
    select
        model_id,
        sum(attempts) as attempts,
        sum(residual_sum order by challenge_id) as residual_sum
    from model_cells
    group by model_id
),

abilities_left_out as (
    select
        model_cells.model_id,
        model_cells.challenge_id,
        model_totals.attempts - model_cells.attempts as other_attempts,
        (model_totals.residual_sum - model_cells.residual_sum)
        / nullif(model_totals.attempts - model_cells.attempts, 0) as ability
    from model_cells
    inner join model_totals
        on model_cells.model_id = model_totals.model_id
    inner join contamination
        on model_cells.challenge_id = contamination.challenge_id
),

adjusted as (
    select
        attempts_modelled.attempt_id,
        attempts_modelled.challenge_id,
        attempts_modelled.model_id,
        attempts_modelled.model_family,
        attempts_modelled.training_cutoff,
        contamination.first_published_at,
        attempts_modelled.score,
        abilities_left_out.ability as model_ability,
        abilities_left_out.other_attempts as model_other_attempts,
        attempts_modelled.score - abilities_left_out.ability as adjusted_score,
        case
            when attempts_modelled.training_cutoff is null then 'unknown'
            when attempts_modelled.training_cutoff > contamination.first_published_at
                then 'post_publication'
            else 'pre_publication'
        end as publication_group
    from attempts_modelled
    inner join contamination
        on attempts_modelled.challenge_id = contamination.challenge_id
    inner join abilities_left_out
        on attempts_modelled.model_id = abilities_left_out.model_id
        and attempts_modelled.challenge_id = abilities_left_out.challenge_id
)

select * from adjusted
