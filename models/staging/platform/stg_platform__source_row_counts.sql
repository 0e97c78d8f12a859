{#
    Rows in each raw platform table, counted straight from the source, and the contract
    columns it has (NULL when the table is absent). A build that reads the scan stage from
    a warehouse's files answers "is this optional input there?" from that column
    (macro source_column_names), as it cannot see the raw tables.
#}
{{ scan_stage_config('view') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{#- Optional tables count zero rows when absent. -#}
{%- set source_tables = [
    'attempts', 'challenges', 'agents', 'models',
    'test_cases', 'test_results', 'challenge_files', 'reference_corpus',
    'rubric_items', 'rubric_scores',
] %}
{%- set optional_columns = {
    'test_cases': {'test_case_id': 'string'},
    'test_results': {'attempt_id': 'string'},
    'challenge_files': {'challenge_id': 'string'},
    'reference_corpus': {'document_id': 'string'},
    'rubric_items': {'rubric_item_id': 'string'},
    'rubric_scores': {'attempt_id': 'string'},
} %}
with

{% for table_name in source_tables %}
{%- set present = source_column_names(table_name) if source_table_exists(table_name) else none %}
{{ table_name }}_rows as (
    select
        '{{ table_name }}' as source_table,
        count(*) as raw_rows,
        {{ sql_string_literal(present | join(',') if present is not none else none) }}
            as source_columns
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
{%- endif %}
