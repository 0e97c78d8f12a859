{#
    One row per (challenge, model) cell with scored attempts, for models with a training
    cutoff: the cell mean, its residual against the challenge's model-balanced mean (the
    mean of the cell means of the challenge, each model counted once: difficulty removed),
    the model's centred cutoff in years, and whether the challenge is a control (it carries
    no `api:*` tag). Models without a cutoff are left out here and counted in the marts.
#}
with

agent_cells as (
    select * from {{ ref('int_agent_challenge_scores_summarised') }}
),

cutoffs as (
    select * from {{ ref('int_model_cutoffs_centred') }}
),

api_challenges as (
    select * from {{ ref('int_api_challenges_tagged') }}
),

model_cells as (
    select
        agent_cells.challenge_id,
        agent_cells.model_id,
        cutoffs.cutoff_years,
        sum(agent_cells.scored_attempts) as scored_attempts,
        {#- floating sums and means in a fixed order: the same bits on every build #}
        sum(agent_cells.score_sum order by agent_cells.agent_id)
        / sum(agent_cells.scored_attempts) as mean_score
    from agent_cells
    inner join cutoffs
        on agent_cells.model_id = cutoffs.model_id
    where cutoffs.cutoff_years is not null
    group by agent_cells.challenge_id, agent_cells.model_id, cutoffs.cutoff_years
),

residualised as (
    select
        challenge_id,
        model_id,
        cutoff_years,
        scored_attempts,
        mean_score,
        mean_score - avg(mean_score) over (
            partition by challenge_id order by model_id
            rows between unbounded preceding and unbounded following
        ) as residual
    from model_cells
),

labelled as (
    select
        residualised.*,
        residualised.challenge_id not in (select api_challenges.challenge_id from api_challenges)
            as is_control
    from residualised
)

select * from labelled
