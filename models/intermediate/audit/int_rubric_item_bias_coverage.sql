{# One row: can rubric-item DIF run (rubric_items and rubric_scores exist), on how many scored results. #}
{%- set missing = [] %}
{%- if not source_table_exists('rubric_items') %}{% do missing.append('rubric_items') %}{% endif %}
{%- if not source_table_exists('rubric_scores') %}{% do missing.append('rubric_scores') %}{% endif %}
with

banded as (
    select * from {{ ref('int_rubric_scores_banded') }}
),

analysed as (
    select coalesce(sum(passes + failures), 0) as rows_analysed
    from banded
),

coverage as (
    select
        'rubric_item_bias' as detector,
        {{ 'true' if missing | length == 0 else 'false' }} as is_available,
        {% if missing -%}
        'optional source table(s) absent: {{ missing | join(", ") }}'
        {%- else -%}
        cast(null as varchar)
        {%- endif %} as missing_inputs,
        rows_analysed
    from analysed
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from coverage
