{#
    The findings of detector `api_memorization`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__api_memorization_findings() %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

apis as (
    select * from {{ ref('fct_api_memorization') }}
),

api_challenges as (
    select * from {{ ref('fct_api_memorization_challenges') }}
),

{#- API memorisation: the API is the flagged unit; every challenge tagged with it inherits
    the finding, with its own (uncorrected) slope in the evidence. #}
findings as (
    select
        api_challenges.challenge_id,
        'api_memorization' as detector,
        api_challenges.challenge_id || '/' || apis.tag as finding_id,
        cast(null as varchar) as model_family,
        apis.slope_difference as effect,
        'points per year of training cutoff beyond the control trend (API level)' as effect_unit,
        apis.ci_low,
        apis.ci_high,
        apis.q_value,
        apis.slope_threshold as threshold,
        'tagged ' || apis.tag || ': scores on the API''s challenges rise '
            || {{ format_number('apis.slope_difference', '%+.2f') }}
            || ' points per year of training cutoff beyond the control trend ('
            || {{ format_number('100 * apis.interval_level', '%.0f') }} || '% CI '
            || {{ format_number('apis.ci_low', '%+.2f') }} || ' to '
            || {{ format_number('apis.ci_high', '%+.2f') }} || ', q = '
            || {{ format_number('apis.q_value', '%.2g') }} || '; threshold '
            || {{ format_number('apis.slope_threshold', '%g') }} || ')'
            || coalesce(
                '; this challenge alone: '
                || {{ format_number('api_challenges.slope_difference', '%+.2f') }},
                ''
            ) as evidence,
        case
            when api_challenges.ci_low > apis.slope_threshold then 'rewrite_challenge'
            else 'watch'
        end as recommended_action,
        case
            when api_challenges.ci_low > apis.slope_threshold then
                'newer models have memorised ' || apis.tag || ' (scores on its challenges rise'
                || ' with training cutoff beyond their general progress) and this challenge''s'
                || ' own slope is beyond the threshold with confidence (CI from '
                || {{ format_number('api_challenges.ci_low', '%+.2f') }} || '): rewrite it so'
                || ' it does not reward recall of the API (a platform-level trend on a passing'
                || ' challenge is no reason to retire it)'
            else
                'a platform-level trend: newer models do better on ' || apis.tag || '''s'
                || ' challenges, but this challenge''s own slope'
                || coalesce(' (CI ' || {{ format_number('api_challenges.ci_low', '%+.2f') }}
                    || ' to ' || {{ format_number('api_challenges.ci_high', '%+.2f') }} || ')', '')
                || ' does not show it beyond the threshold with confidence: watch it in the'
                || ' next scans'
        end as action_reason
    from apis
    inner join api_challenges
        on apis.api_name = api_challenges.api_name
    where apis.is_flagged
)

select * from findings
{% endmacro %}
