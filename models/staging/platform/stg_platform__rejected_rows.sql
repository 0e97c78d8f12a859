{# One row per raw row that staging could not use, from every platform table. #}
{%- set keys = {
    'attempts': 'attempt_id',
    'challenges': 'challenge_id',
    'agents': 'agent_id',
    'models': 'model_id',
    'test_cases': 'test_case_id',
    'test_results': "attempt_id || '/' || test_case_id",
    'challenge_files': "coalesce(challenge_id, '') || ' / ' || coalesce(file_path, '')",
    'reference_corpus': 'document_id',
    'rubric_items': 'rubric_item_id',
    'rubric_scores': 'rubric_score_id',
} %}
with

{% for table_name, key in keys.items() %}
{{ table_name }} as (
    select
        '{{ table_name }}' as source_table,
        source_row_number,
        {{ key }} as record_id,
        rejection_reason,
        raw_record
    from {{ ref('base_platform__' ~ table_name) }}
    where rejection_reason is not null
),

{% endfor %}
unioned as (
    {% for table_name in keys %}
    select * from {{ table_name }}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from unioned
