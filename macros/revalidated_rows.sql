{#
    The CTEs of an incremental run of a model that validates an append-only raw table
    (base_platform__attempts, __test_results, __rubric_scores): which raw rows it
    validates again, read in one pass over `raw` (a relation expression with
    `source_row_number`), and the check of the rows it validated before.

    - `watermark`: the largest source_row_number folded (column `watermark_column` of the
      model's table);
    - `reread_ids`: the ids (`id_column`, the first column of the row's key) of the new
      rows (past the watermark: a filter the scan pushes down), of the rows kept one by one
      because they were rejected (`rejected_before`, a condition on the model's table), as
      they were read then, and `also_ids` (a select of ids, e.g. the attempts rejected now);
      a new row's id in `ids_without_history` (a select of non-NULL ids whose older rows,
      if any, are among those others: e.g. the attempts new since the last run) is left
      out, so that a run of new ids only reads no older row again;
    - `scanned`: one pass over `raw`. A row validated again is a group of its own: every
      row whose id is among `reread_ids` (so every copy of every key of a new row), a row
      rejected before, a new row, and a row that meets one of `also_validated` (SQL
      conditions on alias `raw`). The rows validated clean before fall into one group
      besides, which sums their count and `row_checksum` (`checksum`, an expression on
      alias `raw`: the hash of the values as read);
    - `source`: the rows validated again, with `columns` (raw columns) as read;
    - `raw_kept`: the count and checksum of the rows clean before as the raw table holds
      them now, and the number of rejected rows whose id was edited in place (the other
      copies of their new key are not read again: the model stops the run on any).
    The model compares `raw_kept` with what it stored, and stops the run on a difference.
#}
{% macro revalidated_rows(raw, id_column, columns, checksum, also_ids=none, also_validated=[], rejected_before='rejection_reason is not null', watermark_column='source_row_number', ids_without_history=none) -%}
{#- The model's table is read where needed, not through a CTE: DuckDB would materialise it. -#}
watermark as (
    select coalesce(max({{ watermark_column }}), -1) as last_row_number
    from {{ this }}
),

reread_ids as (
    select cast(raw.{{ id_column }} as string) as id
    from {{ raw }} as raw
    where raw.source_row_number > (select last_row_number from watermark)
    {%- if ids_without_history %}
        and cast(raw.{{ id_column }} as string) not in ({{ ids_without_history }})
    {%- endif %}
    union
    select {{ id_column }}
    from {{ this }}
    where {{ rejected_before }}
    {%- if also_ids %}
    union
    {{ also_ids }}
    {%- endif %}
),

{#- materialised: the rows validated again are read several times, the raw table once #}
scanned as materialized (
    select
        case when is_validated then source_row_number end as batch_row_number,
        {%- for column in columns %}
        any_value({{ column }}) as {{ column }},
        {%- endfor %}
        count(*) filter (where was_clean) as clean_rows,
        sum(row_checksum) filter (where was_clean) as clean_checksum,
        count(*) filter (where id_changed) as changed_keys
    from (
        select
            raw.*,
            {{ checksum }} as row_checksum,
            cast(raw.{{ id_column }} as string) in (select id from reread_ids where id is not null)
                or rejected.source_row_number is not null
                or raw.source_row_number > (select last_row_number from watermark)
                {%- for condition in also_validated %}
                or {{ condition }}
                {%- endfor %} as is_validated,
            raw.source_row_number <= (select last_row_number from watermark)
                and rejected.source_row_number is null as was_clean,
            rejected.source_row_number is not null
                and cast(raw.{{ id_column }} as string) is distinct from rejected.{{ id_column }}
                as id_changed
        from {{ raw }} as raw
        left join (
            select source_row_number, {{ id_column }}
            from {{ this }}
            where {{ rejected_before }}
        ) as rejected
            on raw.source_row_number = rejected.source_row_number
    ) as flagged
    group by 1
),

source as (
    select
        batch_row_number as source_row_number,
        {{ columns | join(', ') }}
    from scanned
    where batch_row_number is not null
),

raw_kept as (
    select
        coalesce(sum(clean_rows), 0) as kept_rows,
        sum(clean_checksum) as checksum,
        coalesce(sum(changed_keys), 0) as changed_keys
    from scanned
)
{%- endmacro %}

{#
    The row that stops an incremental run of such a model (its output has `columns`
    columns, source_row_number first): reached only when the rows validated clean before
    are not in the raw table as they were (`raw_kept` against the model's `previous_kept`:
    count and checksum), or a rejected row's id was edited in place. `label` names the raw
    rows in the message ('raw test results').
#}
{% macro raw_rows_changed_guard(model_name, label, columns) -%}
select
    cast({{ sql_error(
        "'" ~ model_name ~ ": the " ~ label ~ " up to row ' || cast(watermark.last_row_number as string)"
        ~ " || ' changed since they were validated (' || cast(previous_kept.kept_rows as string)"
        ~ " || ' clean rows expected, ' || cast(raw_kept.kept_rows as string) || ' found, or a value edited in place; '"
        ~ " || cast(raw_kept.changed_keys as string) || ' rejected rows with an id edited in place).'"
        ~ " || ' The raw table must be an append-only log; run dbt build --full-refresh to validate it again.'"
    ) }} as bigint)
    {%- for _ in range(columns - 1) %}, null{% endfor %}
from raw_kept
cross join previous_kept
cross join watermark
where raw_kept.kept_rows <> previous_kept.kept_rows
    or raw_kept.checksum is distinct from previous_kept.checksum
    or raw_kept.changed_keys > 0
{%- endmacro %}

{#
    Whether this incremental run of the model folds in only the changed rows: true when
    the model's table exists (is_incremental) and every stored row was validated under
    `current` (a SQL expression of what the rows are validated or counted with), as
    recorded in its column `column`; false on a first or full build, and when that
    changed (the run then validates every row again).
#}
{% macro folds_changed_rows(column, current) -%}
    {%- if not is_incremental() -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set stale = run_query(
        'select count(*) from ' ~ this ~ ' where ' ~ column ~ ' is distinct from (' ~ current ~ ')') -%}
    {{ return(stale.columns[0].values()[0] == 0) }}
{%- endmacro %}

{#
    The largest value of `column` in the model's table, read when the run compiles, so
    that a filter on it is a constant the scan can skip by; none on a first or full build
    and when the table is empty.
#}
{% macro stored_maximum(column) -%}
    {%- if not is_incremental() -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(run_query('select max(' ~ column ~ ') from ' ~ this).columns[0].values()[0]) }}
{%- endmacro %}
