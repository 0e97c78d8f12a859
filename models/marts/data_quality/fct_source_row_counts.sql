with

raw_counts as (
    select * from {{ ref('stg_platform__source_row_counts') }}
),

rejected as (
    {{ rejected_platform_rows() }}
),

{#- The attempts and the rows tied to them are counted where they are checked: valid rows
    left out of the scan (var bias_scan_date) are clean, just not in this run's scan. #}
{%- set attempt_bound = ['attempts', 'test_results', 'rubric_scores'] %}
{% for table_name in [
    'attempts', 'challenges', 'agents', 'models',
    'test_cases', 'test_results', 'challenge_files', 'reference_corpus',
    'rubric_items', 'rubric_scores',
] %}
clean_{{ table_name }} as (
    select
        '{{ table_name }}' as source_table,
        {% if table_name == 'test_results' -%}
        {# the clean test results are compressed: one row per (test case, agent, band, outcome) #}
        cast(coalesce(sum(results), 0) as bigint) as clean_rows,
        cast(coalesce(sum(results) filter (where not is_in_scan), 0) as bigint)
            as outside_scan_rows,
        {%- elif table_name == 'attempts' -%}
        count(*) as clean_rows,
        count(*) filter (where not ({{ attempt_in_scan('attempts.submitted_at') }}))
            as outside_scan_rows,
        {%- elif table_name == 'rubric_scores' -%}
        count(*) as clean_rows,
        count(*) filter (where not is_in_scan) as outside_scan_rows,
        {%- else -%}
        count(*) as clean_rows,
        cast(null as bigint) as outside_scan_rows,
        {%- endif %}
        {% if table_name == 'attempts' -%}
        count(*) filter (where attempts.score is null) as unscored_rows
        {%- else -%}
        cast(null as bigint) as unscored_rows
        {%- endif %}
    {% if table_name == 'attempts' -%}
    from {{ ref('base_platform__attempts') }} as attempts
    left join {{ rejected_after_staging('attempts') }} as rejected
        on attempts.source_row_number = rejected.source_row_number
    where attempts.rejection_reason is null
        and rejected.source_row_number is null
    {%- elif table_name in attempt_bound -%}
    from {{ ref('int_keyed__' ~ table_name ~ '_checked') }}
    where rejection_reason is null
    {%- elif table_name in ['challenges', 'models', 'reference_corpus'] -%}
    from {{ ref('stg_platform__' ~ table_name) }}
    {%- else -%}
    from {{ ref('int_keyed__' ~ table_name) }}
    {%- endif %}
),

{% endfor %}
clean_counts as (
    select * from clean_attempts
    union all
    select * from clean_challenges
    union all
    select * from clean_agents
    union all
    select * from clean_models
    union all
    select * from clean_test_cases
    union all
    select * from clean_test_results
    union all
    select * from clean_challenge_files
    union all
    select * from clean_reference_corpus
    union all
    select * from clean_rubric_items
    union all
    select * from clean_rubric_scores
),

rejected_counts as (
    select
        source_table,
        count(*) as rejected_rows
    from rejected
    group by source_table
),

counted as (
    select
        raw_counts.source_table,
        raw_counts.raw_rows,
        clean_counts.clean_rows,
        coalesce(rejected_counts.rejected_rows, 0) as rejected_rows,
        clean_counts.outside_scan_rows,
        clean_counts.unscored_rows
    from raw_counts
    inner join clean_counts
        on raw_counts.source_table = clean_counts.source_table
    left join rejected_counts
        on raw_counts.source_table = rejected_counts.source_table
)

select
    cast(source_table as varchar) as source_table,
    cast(raw_rows as bigint) as raw_rows,
    cast(clean_rows as bigint) as clean_rows,
    cast(rejected_rows as bigint) as rejected_rows,
    cast(outside_scan_rows as bigint) as outside_scan_rows,
    cast(unscored_rows as bigint) as unscored_rows,
    cast(raw_rows = clean_rows + rejected_rows as boolean) as is_conserved
from counted
