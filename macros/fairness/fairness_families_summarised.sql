{#
    One row per (partition..., challenge, model family) with at least one clean attempt in
    `score_counts` (rows of int_attempt_scores_counted's shape plus the partition columns):
    scored and unscored counts, mean and sample variance (ddof=1) of the scores, two-pass
    from the compressed counts. A query; partition_by = [] is the all-time grain.
    A family with one distinct score has that score as its mean and a variance of exactly
    0: its mean from the counts can be an ulp off a score that is not a binary fraction
    (15 scores of 30.03), which would leave a variance of about 1e-29 instead.
    Floating sums run in score order (one row per score in a group), so two builds give
    the same bits whatever order parallel threads read the rows in.
#}
{% macro fairness_families_summarised(score_counts, partition_by=[]) -%}
{%- set p = partition_by -%}
with

sums as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        model_family,
        cast(coalesce(sum(attempts) filter (where score is not null), 0) as bigint)
            as scored_attempts,
        cast(coalesce(sum(attempts) filter (where score is null), 0) as bigint)
            as unscored_attempts,
        sum(score * attempts order by score) filter (where score is not null) as score_sum,
        min(score) = max(score) as is_constant,
        min(score) as min_score
    from {{ score_counts }}
    group by {{ _partition_columns(none, p) }}challenge_id, model_family
),

means as (
    select
        *,
        case
            when is_constant then min_score
            else score_sum / nullif(scored_attempts, 0)
        end as mean_score
    from sums
),

spread as (
    select
        {{ _partition_columns('means', p) }}means.challenge_id,
        means.model_family,
        sum(score_counts.attempts * power(score_counts.score - means.mean_score, 2)
            order by score_counts.score)
            as sum_squared_deviations
    from means
    inner join {{ score_counts }} as score_counts
        on means.challenge_id = score_counts.challenge_id
        and means.model_family = score_counts.model_family
        {{- _partition_join('means', 'score_counts', p) }}
    where score_counts.score is not null
    group by {{ _partition_columns('means', p) }}means.challenge_id, means.model_family
),

summarised as (
    select
        {{ _partition_columns('means', p) }}means.challenge_id,
        means.model_family,
        means.scored_attempts,
        means.unscored_attempts,
        means.score_sum,
        means.mean_score,
        case
            when means.scored_attempts > 1 and means.is_constant then 0.0
            when means.scored_attempts > 1
                then spread.sum_squared_deviations / (means.scored_attempts - 1)
        end as variance_score
    from means
    left join spread
        on means.challenge_id = spread.challenge_id
        and means.model_family = spread.model_family
        {{- _partition_join('means', 'spread', p) }}
)

select * from summarised
{%- endmacro %}
