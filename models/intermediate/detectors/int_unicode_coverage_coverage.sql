{# One row: can the Unicode coverage detector run, and on how many test inputs. #}
{%- set has_test_cases = source_table_exists('test_cases') %}
{%- set tag = var('unicode_coverage_tag') %}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

unicode_coverage as (
    select * from {{ ref('fct_string_challenge_unicode_coverage') }}
),

string_challenges_counted as (
    select count(*) as string_challenges
    from challenges
    where {{ tags_contain('tags', sql_string_literal(tag)) }}
),

inputs_counted as (
    select coalesce(sum(test_inputs), 0) as rows_analysed
    from unicode_coverage
),

coverage as (
    select
        'unicode_coverage' as detector,
        {{ 'true' if has_test_cases else 'false' }}
            and string_challenges_counted.string_challenges > 0 as is_available,
        nullif(concat_ws(
            '; ',
            {% if not has_test_cases -%}
            'optional source table absent: test_cases',
            {%- endif %}
            case
                when string_challenges_counted.string_challenges = 0
                    then 'no challenge tagged ' || {{ sql_string_literal(tag) }}
            end
        ), '') as missing_inputs,
        inputs_counted.rows_analysed
    from string_challenges_counted
    cross join inputs_counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from coverage
