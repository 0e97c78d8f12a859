{#
    The findings of detector `challenge_contamination`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__challenge_contamination_findings() %}
with

contaminated_challenges as (
    select * from {{ ref('fct_challenge_contamination') }}
),

findings as (
    {#- A challenge is flagged by whole-text similarity or by one file's containment: the
        effect is the measure of the rule that fired (similarity when both did). #}
    select
        challenge_id,
        'challenge_contamination' as detector,
        challenge_id || '/' || coalesce(
            case when flag_rule = 'containment' then containment_document_id end,
            best_document_id
        ) as finding_id,
        cast(null as varchar) as model_family,
        case when flag_rule = 'containment' then containment else similarity end as effect,
        case
            when flag_rule = 'containment'
                then 'containment: share of one text''s token shingles found in the other'
            else 'Jaccard similarity of token shingles'
        end as effect_unit,
        cast(null as double) as ci_low,
        cast(null as double) as ci_high,
        cast(null as double) as q_value,
        case
            when flag_rule = 'containment' then containment_threshold else similarity_threshold
        end as threshold,
        case
            when flag_rule = 'containment'
                then case
                    when containment_direction = 'document_in_file'
                        then 'reference document ' || containment_document_id
                            || ' is contained in file ' || containment_file_path
                    else 'file ' || containment_file_path
                        || ' is contained in reference document ' || containment_document_id
                end
                    || ' (containment ' || {{ format_number('containment', '%.2f') }}
                    || '; threshold ' || {{ format_number('containment_threshold', '%g') }}
                    || '; whole-text similarity '
                    || coalesce({{ format_number('similarity', '%.2f') }}, 'n/a') || ')'
            else 'file ' || best_file_path || ' matches reference document ' || best_document_id
                || coalesce(' (' || best_document_source || ')', '') || ' with similarity '
                || {{ format_number('similarity', '%.2f') }} || ' (' || match_level
                || ' match; threshold ' || {{ format_number('similarity_threshold', '%g') }} || ')'
        end as evidence,
        'retire_challenge' as recommended_action,
        'its code is public (in the reference corpus), so models trained on it may have'
            || ' memorised it: memorised content cannot be un-memorised; retire the challenge'
            || ' and replace it with fresh code' as action_reason
    from contaminated_challenges
    where is_flagged
)

select * from findings
{% endmacro %}
