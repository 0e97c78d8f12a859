{#
    One row per (window, challenge, model family) with at least one clean attempt in the
    window: counts, mean and sample variance of the scores (the all-time
    int_challenge_families_summarised, by window: macro fairness_families_summarised).
#}
with

score_counts as (
    select * from {{ ref('int_window_attempt_scores_counted') }}
    where window_start is not null
),

summarised as (
    {{ fairness_families_summarised('score_counts', ['window_start']) }}
)

select * from summarised
