{#
    One row per (partition..., challenge, model family) with scored attempts in
    `score_counts`: the Yuen trimmed mean of the family's scores on the challenge and the
    squared standard error of that mean (scipy, through trimmed_cell). A query.

    Trimming is there to keep crashed attempts near 0 from dominating a cell; it needs
    varied scores. Where a cell's scores are too discrete to trim (`trims_ties`: both
    trimmed tails are ties of the values kept, or the values kept are one value, as
    pass/fail scores always are), the trimmed mean moves in steps of the ties and its
    variance can be 0 while the scores vary, so every cell of that challenge (and
    partition) is the plain mean instead: the 0 % trimmed mean, with the squared standard
    error s^2 / n and h = n. The families of a challenge are always compared on one
    estimator; `trim_proportion` says which.
#}
{% macro fairness_family_cells_trimmed(score_counts, partition_by=[]) -%}
{%- set p = partition_by -%}
{%- set trim = challenge_fairness.validated_var('trim_proportion') | float -%}
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
        scores,
        counts,
        {{ trimmed_cell('scores', 'counts', trim) }} as cell
    from cell_lists
),

challenge_trims as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        bool_or(cell.trims_ties) as is_too_discrete
    from trimmed
    group by {{ _partition_columns(none, p) }}challenge_id
),

estimated as (
    select
        {{ _partition_columns('trimmed', p) }}trimmed.challenge_id,
        trimmed.model_family,
        cast(case when challenge_trims.is_too_discrete then 0 else {{ trim }} end as double)
            as trim_proportion,
        case
            when challenge_trims.is_too_discrete
                then {{ trimmed_cell('trimmed.scores', 'trimmed.counts', 0.0) }}
            else trimmed.cell
        end as cell
    from trimmed
    inner join challenge_trims
        on trimmed.challenge_id = challenge_trims.challenge_id
        {{- _partition_join('trimmed', 'challenge_trims', p) }}
)

select
    {{ _partition_columns(none, p) }}challenge_id,
    model_family,
    cell.observations as attempts,
    trim_proportion,
    cell.trimmed_mean,
    cell.trimmed_mean_variance,
    cell.effective_n,
    cell.status,
    cell.reason
from estimated
{%- endmacro %}
