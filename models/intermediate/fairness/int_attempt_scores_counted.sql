{#
    Clean attempts compressed to one row per (challenge, model family, distinct score) with
    its count: the window counts of int_window_attempt_scores_counted summed over windows
    (no second scan of attempts). Unscored attempts form the score-NULL row. Every
    all-time statistic downstream is exact on this table; with integer scores it is a few
    hundred rows per challenge however many attempts there are.
#}
with

window_counts as (
    select * from {{ ref('int_window_attempt_scores_counted') }}
),

counted as (
    select
        challenge_id,
        model_family,
        score,
        cast(sum(attempts) as bigint) as attempts
    from window_counts
    group by challenge_id, model_family, score
)

select * from counted
