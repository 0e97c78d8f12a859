{#
    One row per (partition..., challenge, model family) with scored attempts in
    `score_counts`: the Yuen trimmed mean of the family's scores on the challenge and the
    squared standard error of that mean (scipy, through trimmed_cell). A query.
#}
{% macro fairness_family_cells_trimmed(score_counts, partition_by=[]) -%}
{%- set p = partition_by -%}
with

cell_lists as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        model_family,
        list(score order by score) as scores,
        list(attempts order by score) as counts
    from {{ score_counts }}
    where score is not null
    group by {{ _partition_columns(none, p) }}challenge_id, model_family
),

trimmed as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        model_family,
        {{ trimmed_cell('scores', 'counts', var('trim_proportion')) }} as cell
    from cell_lists
)

select
    {{ _partition_columns(none, p) }}challenge_id,
    model_family,
    cell.observations as attempts,
    cell.trimmed_mean,
    cell.trimmed_mean_variance,
    cell.effective_n,
    cell.status,
    cell.reason
from trimmed
{%- endmacro %}
