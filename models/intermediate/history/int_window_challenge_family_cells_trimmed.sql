{#
    One row per (window, challenge, model family) with scored attempts in the window: Yuen
    trimmed mean and its squared standard error (macro fairness_family_cells_trimmed).
#}
with

score_counts as (
    select * from {{ ref('int_window_attempt_scores_counted') }}
    where window_start is not null
),

trimmed as (
    {{ fairness_family_cells_trimmed('score_counts', ['window_start']) }}
)

select * from trimmed
