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

attempts as (
    select * from {{ ref('stg_platform__attempts') }}
    where is_scored
),

agents as (
    select * from {{ ref('stg_platform__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

contamination as (
    select * from {{ ref('fct_challenge_contamination') }}
    where is_flagged and first_published_at is not null
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

challenge_means as (
    select
        challenge_id,
        avg(score) as challenge_mean
    from attempts_modelled
    group by challenge_id
),

model_cells as (
    select
        attempts_modelled.model_id,
        attempts_modelled.challenge_id,
        count(*) as attempts,
        sum(attempts_modelled.score - challenge_means.challenge_mean) as residual_sum
    from attempts_modelled
    inner join challenge_means
        on attempts_modelled.challenge_id = challenge_means.challenge_id
    group by attempts_modelled.model_id, attempts_modelled.challenge_id
),

model_totals as (
    select
        model_id,
        sum(attempts) as attempts,
        sum(residual_sum) as residual_sum
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
