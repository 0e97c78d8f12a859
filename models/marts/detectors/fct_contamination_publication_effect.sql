with

adjusted_attempts as (
    select * from {{ ref('int_contaminated_attempts_adjusted') }}
),

contamination as (
    select * from {{ ref('int_challenge_contamination_scored') }}
    where is_flagged and first_published_at is not null
),

groups_summarised as (
    select
        challenge_id,
        count(
            *) filter (
            where publication_group = 'post_publication'
            and adjusted_score is not null
        ) as post_attempts,
        {#- in attempt order: the same bits on every build #}
        avg(adjusted_score order by attempt_id)
        filter (where publication_group = 'post_publication') as post_mean_adjusted_score,
        var_samp(adjusted_score order by attempt_id)
        filter (where publication_group = 'post_publication') as post_variance,
        count(
            *) filter (
            where publication_group = 'pre_publication'
            and adjusted_score is not null
        ) as pre_attempts,
        avg(adjusted_score order by attempt_id)
        filter (where publication_group = 'pre_publication') as pre_mean_adjusted_score,
        var_samp(adjusted_score order by attempt_id)
        filter (where publication_group = 'pre_publication') as pre_variance,
        count(*) filter (where publication_group = 'unknown' or adjusted_score is null)
            as excluded_attempts,
        string_agg(distinct model_family, ',' order by model_family)
        filter (where publication_group = 'post_publication') as post_families,
        string_agg(distinct model_family, ',' order by model_family)
        filter (where publication_group = 'pre_publication') as pre_families
    from adjusted_attempts
    group by challenge_id
),

joined as (
    select
        contamination.challenge_id,
        contamination.best_document_id,
        contamination.similarity,
        contamination.first_published_at,
        coalesce(groups_summarised.post_attempts, 0) as post_attempts,
        coalesce(groups_summarised.pre_attempts, 0) as pre_attempts,
        coalesce(groups_summarised.excluded_attempts, 0) as excluded_attempts,
        groups_summarised.post_families,
        groups_summarised.pre_families,
        groups_summarised.post_mean_adjusted_score,
        groups_summarised.pre_mean_adjusted_score,
        groups_summarised.post_variance,
        groups_summarised.pre_variance
    from contamination
    left join groups_summarised
        on contamination.challenge_id = groups_summarised.challenge_id
),

tested as (
    select
        *,
        {{ welch_difference(
            'post_attempts', 'post_mean_adjusted_score', 'post_variance',
            'pre_attempts', 'pre_mean_adjusted_score', 'pre_variance',
            var('alpha')
        ) }} as welch
    from joined
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(best_document_id as varchar) as best_document_id,
    cast(similarity as double) as similarity,
    cast(first_published_at as date) as first_published_at,
    cast(post_attempts as bigint) as post_publication_attempts,
    cast(pre_attempts as bigint) as pre_publication_attempts,
    cast(excluded_attempts as bigint) as excluded_attempts,
    cast(post_families as varchar) as post_publication_families,
    cast(pre_families as varchar) as pre_publication_families,
    cast(post_mean_adjusted_score as double) as post_publication_mean_adjusted_score,
    cast(pre_mean_adjusted_score as double) as pre_publication_mean_adjusted_score,
    cast(welch.difference as double) as difference,
    cast(welch.standard_error as double) as standard_error,
    cast(welch.degrees_of_freedom as double) as degrees_of_freedom,
    cast(welch.ci_low as double) as ci_low,
    cast(welch.ci_high as double) as ci_high,
    cast(1 - {{ var('alpha') }} as double) as interval_level,
    cast(welch.t_statistic as double) as t_statistic,
    cast(welch.p_value as double) as p_value,
    cast(welch.status as varchar) as status,
    cast(welch.reason as varchar) as reason
from tested
