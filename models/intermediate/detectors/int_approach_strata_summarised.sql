{#
    One row per (challenge, approach, model family) with scored labelled attempts: count,
    mean and sample variance (ddof=1, NULL below two attempts) of the scores. The strata of
    the approach comparison: attempts of one family are the comparable ones. Counted per
    distinct score first, then summarised as the verdict's family cells are (macro
    fairness_families_summarised, with the approach as a partition column).
#}
with

approaches as (
    select * from {{ ref('int_keyed__attempt_approaches') }}
),

attempts as (
    select * from {{ ref('int_keyed__attempts') }}
),

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

score_counts as (
    select
        attempts.challenge_id,
        approaches.approach,
        models.model_family,
        attempts.score,
        count(*) as attempts
    from approaches
    inner join attempts
        on approaches.attempt_id = attempts.attempt_id
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    where attempts.score is not null
    group by attempts.challenge_id, approaches.approach, models.model_family, attempts.score
),

summarised as (
    {{ fairness_families_summarised('score_counts', ['approach']) }}
)

select
    challenge_id,
    approach,
    model_family,
    scored_attempts,
    mean_score,
    variance_score
from summarised
