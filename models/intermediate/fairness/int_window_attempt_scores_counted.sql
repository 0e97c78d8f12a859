{#
    The one scan of attempts: clean attempts compressed to one row per (challenge, model
    family, time window, distinct score) with its count. The window is the one of the
    var `verdict_history_window` holding submitted_at (NULL when the attempt has no
    timestamp). Unscored attempts form the score-NULL row. The all-time counts
    (int_attempt_scores_counted) are sums of these, so attempts are read once for both
    the all-time verdict and its history.
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

windowed as (
    select
        attempts.challenge_id,
        models.model_family,
        {{ verdict_window_start('attempts.submitted_at') }} as window_start,
        attempts.score
    from attempts
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
),

counted as (
    select
        challenge_id,
        model_family,
        window_start,
        score,
        count(*) as attempts
    from windowed
    group by challenge_id, model_family, window_start, score
)

select * from counted
