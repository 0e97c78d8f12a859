{#
    One row per (challenge, model family) with scored attempts: the Yuen trimmed mean of
    the family's scores on the challenge and the squared standard error of that mean
    (scipy, through the cf_trimmed_cell UDF). Trimming keeps crashed attempts near 0 from
    dominating a cell. Macro fairness_family_cells_trimmed, shared with the history.
#}
with

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
),

trimmed as (
    {{ fairness_family_cells_trimmed('score_counts') }}
)

select * from trimmed
