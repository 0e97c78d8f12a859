{# Rows in each raw platform table, counted straight from the source. #}
{#- Optional tables count zero rows when absent. -#}
{%- set source_tables = [
    'attempts', 'challenges', 'agents', 'models',
    'test_cases', 'test_results', 'challenge_files', 'reference_corpus',
    'rubric_items', 'rubric_scores',
] %}
{%- set optional_columns = {
    'test_cases': {'test_case_id': 'varchar'},
    'test_results': {'attempt_id': 'varchar'},
    'challenge_files': {'challenge_id': 'varchar'},
    'reference_corpus': {'document_id': 'varchar'},
    'rubric_items': {'rubric_item_id': 'varchar'},
    'rubric_scores': {'attempt_id': 'varchar'},
} %}
with

{% for table_name in source_tables %}
{{ table_name }}_rows as (
    select '{{ table_name }}' as source_table, count(*) as raw_rows
    from
        {%- if table_name in optional_columns %}
        {{ optional_source_rows(table_name, optional_columns[table_name]) }} as source
        {%- else %}
        {{ source_rows(table_name) }} as source
        {%- endif %}
),

{% endfor %}
unioned as (
    {% for table_name in source_tables %}
    select * from {{ table_name }}_rows
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from unioned
