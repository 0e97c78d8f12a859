{#-
    Referential integrity of the staging models and the marts, in one place: one row per
    declared relationship (a child column whose non-NULL values must exist as a key of a
    parent model), with the orphan count and the smallest orphan value.

    These checks were `relationships` tests on each model. A test with two parents is picked
    up by dbt's default (eager) indirect selection when either parent is selected, so
    `dbt build --select +<mart>` on a fresh database ran tests whose other model was never
    built. As a model downstream of both sides, the check runs whenever a build reaches it
    (every full build) and never in a subgraph that lacks one side; its test
    (`orphan_rows = 0`) fails the build and names the relationship.
-#}
{%- set relationships = [
    ('stg_platform__agents', 'model_id', 'stg_platform__models', 'model_id'),
    ('stg_platform__attempts', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('stg_platform__attempts', 'agent_id', 'stg_platform__agents', 'agent_id'),
    ('stg_platform__attempt_approaches', 'attempt_id', 'stg_platform__attempts', 'attempt_id'),
    ('stg_platform__test_cases', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('stg_platform__test_results', 'agent_id', 'stg_platform__agents', 'agent_id'),
    ('stg_platform__test_results', 'test_case_id', 'stg_platform__test_cases', 'test_case_id'),
    ('stg_platform__challenge_files', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('stg_platform__challenge_briefings', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('stg_platform__rubric_items', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('stg_platform__rubric_scores', 'attempt_id', 'stg_platform__attempts', 'attempt_id'),
    ('stg_platform__rubric_scores', 'rubric_item_id', 'stg_platform__rubric_items', 'rubric_item_id'),
    ('int_code_documents_shingled', 'document_number', 'int_code_documents_indexed', 'document_number'),
    ('int_code_files_classified', 'document_number', 'int_code_documents_indexed', 'document_number'),
    ('fct_family_deviation', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_family_adjusted_effects', 'challenge_id', 'fct_challenge_verdicts', 'challenge_id'),
    ('fct_challenge_attempts_needed', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_challenge_verdict_history', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_briefing_locale_findings', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_briefing_domain_assumptions', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_challenge_contamination', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_challenge_instance_overlap', 'challenge_a', 'stg_platform__challenges', 'challenge_id'),
    ('fct_challenge_instance_overlap', 'challenge_b', 'stg_platform__challenges', 'challenge_id'),
    ('fct_contamination_family_evidence', 'challenge_id', 'fct_challenge_contamination', 'challenge_id'),
    ('fct_contamination_publication_effect', 'challenge_id', 'fct_challenge_contamination', 'challenge_id'),
    ('fct_agent_score_map', 'agent_id', 'stg_platform__agents', 'agent_id'),
    ('fct_approach_bias', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_string_challenge_unicode_coverage', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_test_case_bias', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('fct_test_case_family_dif', 'test_case_id', 'fct_test_case_bias', 'test_case_id'),
    ('fct_test_code_lint', 'test_case_id', 'stg_platform__test_cases', 'test_case_id'),
    ('fct_api_memorization_challenges', 'api_name', 'fct_api_memorization', 'api_name'),
    ('fct_api_memorization_challenges', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('rpt_monthly_bias_report', 'challenge_id', 'stg_platform__challenges', 'challenge_id'),
    ('rpt_flagged_challenge_score_distributions', 'challenge_id', 'fct_challenge_verdicts', 'challenge_id'),
] -%}

{% for child_model, child_column, parent_model, parent_key in relationships %}
{%- set cte = 'relationship_' ~ loop.index %}
{{ 'with' if loop.first else '' }} {{ cte }} as (
    select
        '{{ child_model }}' as child_model,
        '{{ child_column }}' as child_column,
        '{{ parent_model }}' as parent_model,
        '{{ parent_key }}' as parent_key,
        cast(coalesce(sum(child.child_rows), 0) as bigint) as child_rows,
        cast(coalesce(sum(child.child_rows) filter (where parent.parent_key is null), 0)
            as bigint) as orphan_rows,
        min(cast(child.child_value as varchar))
            filter (where parent.parent_key is null) as first_orphan_value
    {#- The child's rows counted per value first: an attempt-grain child has millions of
        rows but a few hundred challenges or agents, and the join then probes those. #}
    from (
        select {{ child_column }} as child_value, count(*) as child_rows
        from {{ ref(child_model) }}
        where {{ child_column }} is not null
        group by {{ child_column }}
    ) as child
    left join (
        select distinct {{ parent_key }} as parent_key from {{ ref(parent_model) }}
        {#- A distinct over every attempt costs more than all the other checks together:
            an attempt-grain parent keeps only the keys its child uses. #}
        {%- if parent_key == 'attempt_id' %}
        where {{ parent_key }} in (select {{ child_column }} from {{ ref(child_model) }})
        {%- endif %}
    ) as parent
        on child.child_value = parent.parent_key
){{ ',' if not loop.last else '' }}
{% endfor %}

{% for _ in relationships %}
select * from relationship_{{ loop.index }}
{% if not loop.last %}union all{% endif %}
{% endfor %}
order by child_model, child_column
