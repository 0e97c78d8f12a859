{#
    One row per (verdict window, challenge, model family) with scored attempts in the
    window: the Yuen trimmed mean of the family's scores on the challenge and the squared
    standard error of that mean (scipy, through the cf_trimmed_cell UDF). Trimming keeps
    crashed attempts near 0 from dominating a cell; a challenge whose scores are too
    discrete to trim (pass/fail) has plain means, trim_proportion 0. Macro
    fairness_family_cells_trimmed.
#}
with

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
),

trimmed as (
    {{ fairness_family_cells_trimmed('score_counts', ['verdict_window']) }}
)

select * from trimmed
