{# One row: can the implementation-specific test case detector run, and on how many results. #}
{%- set has_test_cases = source_table_exists('test_cases') %}
{%- set has_test_results = source_table_exists('test_results') %}
{%- set missing = [] %}
{%- if not has_test_cases %}{% do missing.append('test_cases') %}{% endif %}
{%- if not has_test_results %}{% do missing.append('test_results') %}{% endif %}
with

banded as (
    select * from {{ ref('int_test_case_results_banded') }}
),

analysed as (
    select coalesce(sum(passes + failures), 0) as rows_analysed
    from banded
),

coverage as (
    select
        'test_case_bias' as detector,
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
