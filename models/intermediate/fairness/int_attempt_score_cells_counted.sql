{#
    The attempt-grain fact: the clean attempts counted per cell (challenge, agent, verdict
    window, score, is_in_scan). window_start is the first day of the verdict_history_window
    holding submitted_at (NULL without a timestamp); score is NULL when unscored;
    is_in_scan says whether the attempts are in this run's scan (macro attempt_in_scan).
    Every count the verdict chain and the agent x challenge summary need is a sum of these
    cells, so the staged attempts are read once for both, and the cells are bounded by
    challenges x agents x windows x distinct scores however many attempts there are.

    Incremental (strategy `fold`), equal to a full recount. A run reads only the attempt
    rows whose count can change: the new rows (past the watermark, the largest
    `last_source_row_number`), the rows rejected now and the rows rejected at the last run
    (kept here one by one: `source_row_number`, every other column NULL). Each leaves the
    cell it was counted in, if it was clean then, and joins its cell if it is clean now
    (a row's values never change: base_platform__attempts checks that; the rows rejected
    now are those of int_keyed__rows_rejected). Every cell is
    counted again when the vars it is counted under changed (`counted_under`). The run's
    delta of cells is kept (`fold_delta`) for the two models that sum the cells: they fold
    it in too (macro fold_delta_of).
#}
{{ config(
    materialized='incremental',
    incremental_strategy='fold',
    unique_key='source_row_number',
    fold_measures=['attempts'],
    fold_maxima=['last_source_row_number'],
    fold_delta=true,
    pre_hook="{{ fold_delta_reset() }}",
    on_schema_change='fail',
) }}
{{ scan_stage_config('incremental') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{%- set counted_under = sql_string_literal(
    'bias_scan_date=' ~ (var('bias_scan_date', none) or '')
    ~ ';verdict_history_window=' ~ verdict_history_window()) %}
{%- set cell = ['challenge_id', 'agent_id', 'window_start', 'score', 'is_in_scan'] %}
{#- Only the rows whose count can change, unless the cells were counted otherwise. #}
{%- set changed_rows_only = folds_changed_rows('counted_under', counted_under) %}
with

{% if changed_rows_only %}
{#- This table is read where needed, not through a CTE: DuckDB would materialise it. #}
watermark as (
    select coalesce(max(last_source_row_number), -1) as last_row_number
    from {{ this }}
),
{% endif %}

{#- the attempts rejected now: in staging or by the key checks after it #}
rejected_attempts as (
    select source_row_number
    from {{ ref('int_keyed__rows_rejected') }}
    where source_table = 'attempts'
),

{%- set attempt_columns -%}
        attempts.source_row_number,
        attempts.challenge_id,
        attempts.agent_id,
        {{ verdict_window_start('attempts.submitted_at') }} as window_start,
        attempts.score,
        {{ attempt_in_scan('attempts.submitted_at') }} as is_in_scan,
        rejected.source_row_number is null as is_clean
    from {{ ref('base_platform__attempts') }} as attempts
    left join rejected_attempts as rejected
        on attempts.source_row_number = rejected.source_row_number
{%- endset %}
attempts as (
    select {{ attempt_columns }}
    {%- if changed_rows_only %}
    {#- three filters the scan can use (the row numbers past the watermark, a join on few
        rows twice), one row each #}
    where attempts.source_row_number > (select last_row_number from watermark)
    union all
    select {{ attempt_columns }}
    where attempts.source_row_number <= (select last_row_number from watermark)
        and rejected.source_row_number is not null
    union all
    select {{ attempt_columns }}
    where attempts.source_row_number <= (select last_row_number from watermark)
        and rejected.source_row_number is null
        and attempts.source_row_number in (
            select source_row_number from {{ this }} where source_row_number is not null
        )
    {%- endif %}
),

counted as (
    select
        cast(null as bigint) as source_row_number,
        {{ cell | join(', ') }},
        count(*) as attempts,
        max(source_row_number) as last_source_row_number
    from attempts
    where is_clean
    group by {{ cell | join(', ') }}
),

{# A row not clean now: kept one by one, so the next run knows it was not counted. When
   every row is counted, found by a join on the few rejected ones: a second reference to
   `attempts` would materialise every attempt. #}
rejected as (
    select
        source_row_number,
        {%- for column in cell %}
        null as {{ column }},
        {%- endfor %}
        0 as attempts,
        source_row_number as last_source_row_number
    {%- if changed_rows_only %}
    from attempts
    where not is_clean
    {%- else %}
    from {{ ref('base_platform__attempts') }} as attempts
    where
        attempts.source_row_number in (
            select rejected_attempts.source_row_number from rejected_attempts
        )
    {%- endif %}
),

{% if changed_rows_only %}
{# The rows read again that were counted at the last run leave their cell. #}
uncounted as (
    select
        cast(null as bigint) as source_row_number,
        {{ cell | join(', ') }},
        -count(*) as attempts,
        cast(null as bigint) as last_source_row_number
    from attempts
    where source_row_number <= (select last_row_number from watermark)
        and source_row_number not in (
            select source_row_number from {{ this }} where source_row_number is not null
        )
    group by {{ cell | join(', ') }}
),
{% elif is_incremental() %}
{# Counted otherwise before: every stored cell leaves. #}
uncounted as (
    select
        source_row_number,
        {{ cell | join(', ') }},
        -attempts as attempts,
        last_source_row_number,
        counted_under
    from {{ this }}
    where source_row_number is null
),
{% endif %}

cells as (
    select *, {{ counted_under }} as counted_under from counted
    union all
    select *, {{ counted_under }} as counted_under from rejected
    {%- if changed_rows_only %}
    union all
    select *, {{ counted_under }} as counted_under from uncounted
    {%- elif is_incremental() %}
    union all
    select * from uncounted
    {%- endif %}
)

select
    cast(source_row_number as bigint) as source_row_number,
    cast(challenge_id as string) as challenge_id,
    cast(agent_id as string) as agent_id,
    cast(window_start as date) as window_start,
    cast(score as double) as score,
    cast(is_in_scan as boolean) as is_in_scan,
    cast(attempts as bigint) as attempts,
    cast(last_source_row_number as bigint) as last_source_row_number,
    cast(counted_under as string) as counted_under
from cells
{%- endif %}
