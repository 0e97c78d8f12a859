{#
    One row per (challenge, approach, model family) with scored labelled attempts: count,
    mean and sample variance (ddof=1, NULL below two attempts) of the scores. The strata of
    the approach comparison: attempts of one family are the comparable ones. Counted per
    distinct score first; mean and variance two-pass from the counts, their floating sums
    in score order (the same bits on every build).
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

means as (
    select
        challenge_id,
        approach,
        model_family,
        sum(attempts) as scored_attempts,
        sum(score * attempts order by score) / sum(attempts) as mean_score
    from score_counts
    group by challenge_id, approach, model_family
),

summarised as (
    select
        means.challenge_id,
        means.approach,
        means.model_family,
        cast(means.scored_attempts as bigint) as scored_attempts,
        means.mean_score,
        case
            when means.scored_attempts > 1 then
                sum(score_counts.attempts * power(score_counts.score - means.mean_score, 2)
                    order by score_counts.score)
                / (means.scored_attempts - 1)
        end as variance_score
    from means
    inner join score_counts
        on means.challenge_id = score_counts.challenge_id
        and means.approach = score_counts.approach
        and means.model_family = score_counts.model_family
    group by
        means.challenge_id,
        means.approach,
        means.model_family,
        means.scored_attempts,
        means.mean_score
)

select * from summarised
