{# One row: can the rubric style-wording lint run (rubric_items exists), on how many items. #}
{%- set has_rubric_items = source_table_exists('rubric_items') %}
with

rubric_items as (
    select * from {{ ref('stg_platform__rubric_items') }}
),

analysed as (
    select count(*) as rows_analysed
    from rubric_items
),

coverage as (
    select
        'rubric_style_lint' as detector,
        {{ 'true' if has_rubric_items else 'false' }} as is_available,
        {% if has_rubric_items -%}
        cast(null as varchar)
        {%- else -%}
        'optional source table absent: rubric_items'
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
