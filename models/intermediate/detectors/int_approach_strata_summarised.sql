{#
    One row per (challenge, approach, model family) with scored labelled attempts: count,
    mean and sample variance (ddof=1, NULL below two attempts) of the scores. The strata of
    the approach comparison: attempts of one family are the comparable ones.
#}
with

approaches as (
    select * from {{ ref('stg_platform__attempt_approaches') }}
),

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
        approaches.approach,
        models.model_family,
        count(*) as scored_attempts,
        avg(attempts.score) as mean_score,
        var_samp(attempts.score) as variance_score
    from approaches
    inner join attempts
        on approaches.attempt_id = attempts.attempt_id
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    where attempts.score is not null
    group by attempts.challenge_id, approaches.approach, models.model_family
)

select * from summarised
