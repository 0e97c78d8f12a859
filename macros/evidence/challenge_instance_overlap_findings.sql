{#
    The findings of detector `challenge_instance_overlap`, one row per finding in the shape
    int_bias_evidence_unioned unions: challenge, detector, finding_id, family, effect with
    its unit, interval, q, threshold, evidence, and the recommended action with its reason.
    Its entry in detector_registry() declares it (`evidence`). A query.
#}
{% macro default__challenge_instance_overlap_findings() %}
with

instance_overlaps as (
    select * from {{ ref('fct_challenge_instance_overlap') }}
),

{#- Instance overlap: one finding per challenge of the pair. #}
instance_overlap_sides as (
    select challenge_a as challenge_id, challenge_b as other_challenge_id, *
    from instance_overlaps
    union all
    select challenge_b as challenge_id, challenge_a as other_challenge_id, *
    from instance_overlaps
),

findings as (
    select
        challenge_id,
        'challenge_instance_overlap' as detector,
        challenge_id || '/' || other_challenge_id as finding_id,
        cast(null as varchar) as model_family,
        case when flag_rule = 'containment' then containment else similarity end as effect,
        case
            when flag_rule = 'containment'
                then 'containment: share of one file''s token shingles found in the other codebase'
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
                then 'it shares a file with ' || other_challenge_id || ': '
                    || contained_challenge_id || '''s ' || contained_file_path
                    || ' is contained in ' || containing_file_path || ' (containment '
                    || {{ format_number('containment', '%.2f') }} || '; threshold '
                    || {{ format_number('containment_threshold', '%g') }}
                    || '; whole-codebase similarity '
                    || {{ format_number('similarity', '%.2f') }}
                    || case when is_same_template then ', same template' else '' end || ')'
            else 'its codebase is a near-duplicate of ' || other_challenge_id || '''s (similarity '
                || {{ format_number('similarity', '%.2f') }} || ', ' || match_level || ' match'
                || case when is_same_template then ', same template' else '' end
                || '; threshold ' || {{ format_number('similarity_threshold', '%g') }} || ')'
        end as evidence,
        'retire_challenge' as recommended_action,
        'it shares its code with ' || other_challenge_id || ': an agent that has seen one has'
            || ' seen the other, and that cannot be undone; retire one of the two (or'
            || ' regenerate its codebase)' as action_reason
    from instance_overlap_sides
)

select * from findings
{% endmacro %}
