{#
    What int_keyed__rows_rejected's incremental run needs to check only the attempts whose
    key checks can change: the largest attempt row number the last run checked
    (`checked_up_to`) and what it checked them against (`checked_with`, macro
    key_checks_inputs), one row in the bookkeeping table `<model>__key_checks` (macro
    fold_bookkeeping), written in the run's transaction (post-hook key_checks_recorded).
#}

{#- What the key checks compare an attempt with, as text: the count and checksum of the
    staged challenges, agents and models with their rejection reasons. The same text, the
    same clean challenges and agents. #}
{% macro key_checks_inputs() -%}
    {%- set staged = {
        'challenges': ['challenge_id', 'rejection_reason'],
        'agents': ['agent_id', 'model_id', 'rejection_reason'],
        'models': ['model_id', 'rejection_reason'],
    } -%}
    {%- for table_name, columns in staged.items() %}
    '{{ ";" if not loop.first }}{{ table_name }}=' || (
        select
            cast(count(*) as varchar) || ':'
            || cast(coalesce({{ checksum_sum(row_hash(columns)) }}, 0) as varchar)
        from {{ ref('base_platform__' ~ table_name) }}
    ){{ ' ||' if not loop.last }}
    {%- endfor %}
{%- endmacro %}

{#- The largest attempt row number the last run checked, when it checked them against
    what staging holds now; none on a first or full build, without a state, or when the
    staged challenges, agents or models changed (then every attempt is checked). #}
{% macro key_checks_checked_up_to() -%}
    {%- set state = fold_bookkeeping(this, 'key_checks') -%}
    {%- if not (execute and target.type == 'duckdb' and is_incremental())
        or not fold_bookkeeping_exists(state) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set found = run_query(
        'select checked_up_to from ' ~ state
        ~ ' where checked_with = (' ~ key_checks_inputs() ~ ')') -%}
    {{ return(found.rows[0][0] if found.rows | length == 1 else none) }}
{%- endmacro %}

{#- Post-hook: the state the run leaves (every attempt staged now is checked). #}
{% macro key_checks_recorded() -%}
    {%- set state = fold_bookkeeping(this, 'key_checks') -%}
    {%- if target.type != 'duckdb' or scan_stage_from_files() -%}
        select 1
    {%- else -%}
        create schema if not exists {{ state.include(identifier=false) }};
        create or replace table {{ state }} as
        select
            cast(coalesce(max(source_row_number), -1) as bigint) as checked_up_to,
            cast({{ key_checks_inputs() }} as varchar) as checked_with
        from {{ ref('base_platform__attempts') }}
    {%- endif -%}
{%- endmacro %}
