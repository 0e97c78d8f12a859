{# One row: can the briefing locale audit run (challenges.briefing_text exists), on how many briefings. #}
{%- set has_briefings = 'briefing_text' in source_column_names('challenges') %}
with

briefings as (
    select * from {{ ref('stg_platform__challenge_briefings') }}
),

analysed as (
    select count(*) as rows_analysed
    from briefings
),

coverage as (
    select
        'briefing_locale' as detector,
        {{ 'true' if has_briefings else 'false' }} as is_available,
        {% if has_briefings -%}
        cast(null as varchar)
        {%- else -%}
        'optional source column absent: challenges.briefing_text'
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
