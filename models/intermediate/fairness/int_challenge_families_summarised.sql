{#
    One row per (challenge, model family) with at least one clean attempt: scored and
    unscored counts, mean and sample variance (ddof=1) of the scores, computed two-pass
    from the compressed counts (macro fairness_families_summarised, shared with the
    verdict history).
#}
with

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
),

summarised as (
    {{ fairness_families_summarised('score_counts') }}
)

select * from summarised
