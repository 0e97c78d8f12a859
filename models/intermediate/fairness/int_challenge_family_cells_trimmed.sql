{#
    One row per (challenge, model family) with scored attempts: the Yuen trimmed mean of
    the family's scores on the challenge and the squared standard error of that mean
    (scipy, through the cf_trimmed_cell UDF). Trimming keeps crashed attempts near 0 from
    dominating a cell.
#}
with

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where score is not null
),

cell_lists as (
    select
        challenge_id,
        model_family,
        list(score order by score) as scores,
        list(attempts order by score) as counts
    from score_counts
    group by challenge_id, model_family
),

trimmed as (
    select
        challenge_id,
        model_family,
        {{ trimmed_cell('scores', 'counts', var('trim_proportion')) }} as cell
    from cell_lists
)

select
    challenge_id,
    model_family,
    cell.observations as attempts,
    cell.trimmed_mean,
    cell.trimmed_mean_variance,
    cell.effective_n,
    cell.status,
    cell.reason
from trimmed
