{#
    One row per (challenge, agent) with at least one scored attempt: count, sum and mean of
    the scores and the passes (score >= `irt_pass_score`), with the agent's model and
    family. One scan of the clean attempts; the API memorisation cells (rolled up to
    models), the family clustering matrix, the contamination adjustment and the 2PL IRT
    fit (attempts and passes) read it.
#}
with

attempts as (
    select * from {{ ref('stg_platform__attempts') }}
),

agents as (
    select * from {{ ref('stg_platform__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

summarised as (
    select
        attempts.challenge_id,
        attempts.agent_id,
        agents.model_id,
        models.model_family,
        count(*) as scored_attempts,
        sum(attempts.score) as score_sum,
        avg(attempts.score) as mean_score,
        count(*) filter (where attempts.score >= {{ var('irt_pass_score') }}) as passes
    from attempts
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    where attempts.score is not null
    group by attempts.challenge_id, attempts.agent_id, agents.model_id, models.model_family
)

select * from summarised
