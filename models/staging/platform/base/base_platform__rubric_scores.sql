{#
    The raw rubric score rows as read, numbered in arrival order (source_row_number; the table
    is an append-only log). A view: the platform's largest tables are not copied to be
    staged. Their rules (types, duplicate keys, the attempt and the rubric item a row names) run
    where the rows are read, in int_keyed__rubric_scores_checked, which reads only the rows whose
    outcome can change. `rubric_scores` is optional: when the platform has no such table this is
    empty. On a warehouse (Spark) a view of the warehouse; a DuckDB build that reads the
    scan stage from its files does not read this one (empty).
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ scan_stage_config('view', warehouse_view=true) }}
{%- if scan_stage_from_files() %}
select
    cast(null as bigint) as source_row_number,
    cast(null as string) as attempt_id,
    cast(null as string) as rubric_item_id,
    cast(null as double) as points
where false
{%- else %}
select
    source_row_number,
    attempt_id,
    rubric_item_id,
    points
from {{ optional_source_rows(
    'rubric_scores',
    {'attempt_id': 'string', 'rubric_item_id': 'string', 'points': 'double'}
) }}
{%- endif %}
