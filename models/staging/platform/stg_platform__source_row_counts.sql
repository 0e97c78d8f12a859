{# Rows in each raw platform table, counted straight from the source. #}
{%- set source_tables = ['attempts', 'challenges', 'agents', 'models'] %}
with

{% for table_name in source_tables %}
{{ table_name }}_rows as (
    select '{{ table_name }}' as source_table, count(*) as raw_rows
    from {{ source_rows(table_name) }} as source
),

{% endfor %}
unioned as (
    {% for table_name in source_tables %}
    select * from {{ table_name }}_rows
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from unioned
