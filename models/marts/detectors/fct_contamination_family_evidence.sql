with

contamination as (
    select * from {{ ref('int_challenge_contamination_scored') }}
    where is_flagged
),

family_deviation as (
    select * from {{ ref('int_family_deviations_measured') }}
),

adjusted_effects as (
    select * from {{ ref('int_family_effects_flagged') }}
    where verdict_window = 'all'
),

adjusted_attempts as (
    select * from {{ ref('int_contaminated_attempts_adjusted') }}
),

family_publication_counts as (
    select
        challenge_id,
        model_family,
        count(*) filter (where publication_group = 'post_publication')
            as post_publication_attempts,
        count(*) filter (where publication_group = 'pre_publication')
            as pre_publication_attempts
    from adjusted_attempts
    group by challenge_id, model_family
),

evidence as (
    select
        contamination.challenge_id,
        family_deviation.model_family,
        contamination.similarity,
        contamination.match_level,
        contamination.best_document_id,
        contamination.best_document_source,
        contamination.first_published_at,
        family_deviation.attempts,
        family_publication_counts.post_publication_attempts,
        family_publication_counts.pre_publication_attempts,
        family_deviation.mean_score,
        family_deviation.deviation,
        family_deviation.is_flagged as is_deviation_flagged,
        adjusted_effects.adjusted_deviation,
        adjusted_effects.ci_low as adjusted_ci_low,
        adjusted_effects.ci_high as adjusted_ci_high,
        adjusted_effects.interval_level,
        adjusted_effects.p_value_sidak as adjusted_p_value_sidak,
        coalesce(adjusted_effects.is_flagged, false) as is_adjusted_flagged
    from contamination
    inner join family_deviation
        on contamination.challenge_id = family_deviation.challenge_id
    left join adjusted_effects
        on family_deviation.challenge_id = adjusted_effects.challenge_id
        and family_deviation.model_family = adjusted_effects.model_family
    left join family_publication_counts
        on family_deviation.challenge_id = family_publication_counts.challenge_id
        and family_deviation.model_family = family_publication_counts.model_family
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(model_family as varchar) as model_family,
    cast(similarity as double) as similarity,
    cast(match_level as varchar) as match_level,
    cast(best_document_id as varchar) as best_document_id,
    cast(best_document_source as varchar) as best_document_source,
    cast(first_published_at as date) as first_published_at,
    cast(attempts as bigint) as attempts,
    cast(post_publication_attempts as bigint) as post_publication_attempts,
    cast(pre_publication_attempts as bigint) as pre_publication_attempts,
    cast(mean_score as double) as mean_score,
    cast(deviation as double) as deviation,
    cast(is_deviation_flagged as boolean) as is_deviation_flagged,
    cast(adjusted_deviation as double) as adjusted_deviation,
    cast(adjusted_ci_low as double) as adjusted_ci_low,
    cast(adjusted_ci_high as double) as adjusted_ci_high,
    cast(interval_level as double) as interval_level,
    cast(adjusted_p_value_sidak as double) as adjusted_p_value_sidak,
    cast(is_adjusted_flagged as boolean) as is_adjusted_flagged
from evidence
