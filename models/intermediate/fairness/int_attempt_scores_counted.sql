{#
    The one scan of attempts: clean attempts compressed to one row per
    (challenge, model family, distinct score) with its count. Unscored attempts form the
    score-NULL row. Every statistic downstream is exact on this table; with integer scores
    it is a few hundred rows per challenge however many attempts there are.
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

counted as (
    select
        attempts.challenge_id,
        models.model_family,
        attempts.score,
        count(*) as attempts
    from attempts
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    group by attempts.challenge_id, models.model_family, attempts.score
)

select * from counted
