{#
    One row per (verdict window, challenge, model family) with at least one clean attempt
    in the window ('all' = every attempt): scored and unscored counts, mean and sample
    variance (ddof=1) of the scores, computed two-pass from the compressed counts (macro
    fairness_families_summarised).
#}
with

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
),

summarised as (
    {{ fairness_families_summarised('score_counts', ['verdict_window']) }}
)

select * from summarised
