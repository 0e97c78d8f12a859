{#
    The CTEs of an incremental run of a model that validates an append-only raw table
    (base_platform__attempts, int_keyed__test_results_checked,
    int_keyed__rubric_scores_checked): which raw rows it validates again, and the check of
    the rows it validated before.

    - `watermark`: the largest source_row_number folded (column `watermark_column` of the
      model's table), read when the run compiles: a constant the scans skip by;
    - `reread_ids`: the ids (`id_column`, the first column of the row's key) of the new
      rows (past the watermark), of the rows kept one by one because they were rejected
      (`rejected_before`, a condition on the model's table), as they were read then, and
      `also_ids` (a select of ids, e.g. the attempts rejected now); a new row's id in
      `ids_without_history` (a select of non-NULL ids whose older rows, if any, are among
      those others: e.g. the attempts new since the last run) is left out, so that a run
      of new ids only reads no older row again;
    - `rows_again`: the row numbers up to the watermark validated again: the rows rejected
      before and, when the model's table keeps every row with its id (`stores_rows`), the
      clean rows (`clean_before`, the opposite condition, on a column of the table)
      sharing an id with `reread_ids`. They are found in the table, not in the raw one;
      by the hash of the id when the table has one (`id_hash_column`: a 64-bit column is
      read and probed several times faster than a text one; a collision only
      validates again a clean row of another id, which comes out the same, since the
      other copies of a clean row's id are rejected rows, read again anyway);
    - `scanned`: the rows validated again, as the raw table holds them now: the new rows
      (a scan that skips to them), the `rows_again` (a join on the row number, which skips
      to them too), and, when the table does not keep its rows (`stores_rows` false) and
      `reread_ids` is not empty, the older rows sharing an id with those (a pass over the
      raw table's id column); `clean_rows` 1 for a row validated clean before,
      `changed_keys` 1 for a rejected row whose id was edited in place;
    - `source`: the rows validated again, with `columns` (raw columns) as read;
    - `raw_kept`: the rows validated clean before as the raw table holds them now: their
      count (from the files' metadata when `raw_table`, the platform table `raw` reads, is
      read from parquet and the history is not checked) and, when var `check_history` is
      true, the sum of `checksum` (an
      expression on alias `raw`: the row's hash, macro raw_row_checksum), which takes one pass
      over every raw row folded before; and the number of rejected rows whose id was
      edited in place (the other copies of their new key are not read again); and, when
      the table keeps its rows, the checksum of the first `history_head_rows` of them, raw
      and stored, compared in every run (a replaced or rewritten table).
    The model compares `raw_kept` with what it stored, and stops the run on a difference.
#}
{% macro revalidated_rows(raw, id_column, columns, checksum, also_ids=none, rejected_before='rejection_reason is not null', watermark_column='source_row_number', ids_without_history=none, stores_rows=true, clean_before='rejection_reason is null', id_hash_column=none, raw_table=none) -%}
{%- set stored = stored_maximum(watermark_column) %}
{%- for stored_column in [id_hash_column, 'row_checksum' if stores_rows else none] if stored_column and execute %}
    {%- do challenge_fairness._require_stored_column(stored_column) %}
{%- endfor %}
{%- set last_row_number = -1 if stored is none else stored %}
{%- set reread_ids_select -%}
    select cast(raw.{{ id_column }} as string) as id
    from {{ raw }} as raw
    where raw.source_row_number > {{ last_row_number }}
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
{%- endset %}
{#- Without the rows, older copies of a re-read id are found in the raw table: a pass over
    its id column, taken only when there is an id to look for. #}
{%- set reads_raw_ids = false %}
{%- if not stores_rows and execute %}
    {%- set reread = run_query(
        'select count(*) from (' ~ reread_ids_select ~ ') as reread_ids where id is not null') %}
    {%- set reads_raw_ids = reread.columns[0].values()[0] > 0 %}
{%- endif %}
{#- The model's table is read where needed, not through a CTE: DuckDB would materialise it. -#}
watermark as (
    select cast({{ last_row_number }} as bigint) as last_row_number
),

reread_ids as (
    {{ reread_ids_select }}
),

rows_again as (
    select source_row_number, {{ id_column }} as rejected_id, true as was_rejected
    from {{ this }}
    where {{ rejected_before }}
    {%- if stores_rows %}
    union all
    select source_row_number, null, false
    from (
        {#- semi and anti joins: DuckDB pushes a filter of the other side into the scan #}
        select kept.source_row_number
        from {{ this }} as kept
        semi join (
            select {{ row_hash(['id']) if id_hash_column else 'id' }} as id
            from reread_ids
            where id is not null
        ) as reread
            on kept.{{ id_hash_column or id_column }} = reread.id
        where kept.{{ clean_before }}
    ) as clean_again
    {%- endif %}
),

{%- set raw_columns -%}
        raw.source_row_number as batch_row_number,
        {%- for column in columns %}
        raw.{{ column }},
        {%- endfor %}
{%- endset %}
{#- materialised: the rows validated again are read several times, the raw table once #}
scanned as materialized (
    select
        {{ raw_columns }}
        0 as clean_rows,
        0 as changed_keys
    from {{ raw }} as raw
    where raw.source_row_number > {{ last_row_number }}
    union all
    select
        {{ raw_columns }}
        case when rows_again.was_rejected then 0 else 1 end,
        case
            when rows_again.was_rejected
                and cast(raw.{{ id_column }} as string) is distinct from rows_again.rejected_id
                then 1
            else 0
        end
    from {{ raw }} as raw
    inner join rows_again
        on raw.source_row_number = rows_again.source_row_number
    {%- if reads_raw_ids %}
    union all
    select
        {{ raw_columns }}
        1,
        0
    from {{ raw }} as raw
    where raw.source_row_number <= {{ last_row_number }}
        and cast(raw.{{ id_column }} as string) in (select id from reread_ids where id is not null)
        and raw.source_row_number not in (select source_row_number from rows_again)
    {%- endif %}
),

source as (
    select
        batch_row_number as source_row_number,
        {{ columns | join(', ') }}
    from scanned
),

{#- Read from parquet, the raw rows are numbered 0, 1, ... with no gap, so without the history
    check their count up to the watermark is known from the files' metadata: the pass over
    every raw row number (0.2 to 0.4 s of CPU a table at 100M attempts) is left out. #}
{%- set raw_rows = challenge_fairness.raw_parquet_row_count(raw_table)
    if raw_table and not var('check_history') else none %}
raw_kept as (
    select
        {%- if raw_rows is not none %}
        {%- set numbered = [last_row_number + 1, raw_rows] | min %}
        {{ numbered }} - (
            select count(*)
            from {{ this }}
            where {{ rejected_before }}
                and source_row_number < {{ numbered }}
        ) as kept_rows,
        null as checksum,
        {%- else %}
        count(*) as kept_rows,
        {%- if var('check_history') %}
        sum({{ checksum }}) as checksum,
        {%- else %}
        null as checksum,
        {%- endif %}
        {%- endif %}
        {#- The head of the table (var history_head_rows), checked in every run: a raw
            table replaced or rewritten from its start is caught without a full pass. A
            query of its own, so that only the head's columns are read and hashed (in the
            count above, a filtered sum read every row's: 4.6 to 7.7 s of a daily run at
            100M attempts, against 0.9 to 1.6 s without the check). #}
        {%- set head_rows = var('history_head_rows', 10000) | int %}
        {%- if stores_rows and head_rows > 0 %}
        (
            select sum({{ checksum }})
            from {{ raw }} as raw
            where raw.source_row_number <= {{ head_rows }}
                and raw.source_row_number <= {{ last_row_number }}
                and raw.source_row_number not in (
                    select source_row_number
                    from {{ this }}
                    where {{ rejected_before }}
                )
        ) as head_checksum,
        (
            select sum(kept.row_checksum)
            from {{ this }} as kept
            where kept.{{ clean_before }} and kept.source_row_number <= {{ head_rows }}
        ) as stored_head_checksum,
        {%- else %}
        null as head_checksum,
        null as stored_head_checksum,
        {%- endif %}
        (select coalesce(sum(changed_keys), 0) from scanned) as changed_keys
    {%- if raw_rows is none %}
    from {{ raw }} as raw
    where raw.source_row_number <= {{ last_row_number }}
        and raw.source_row_number not in (
            select source_row_number
            from {{ this }}
            where {{ rejected_before }}
        )
    {%- endif %}
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
    {%- if var('check_history') %}
    or raw_kept.checksum is distinct from previous_kept.checksum
    {%- endif %}
    or raw_kept.changed_keys > 0
    or raw_kept.head_checksum is distinct from raw_kept.stored_head_checksum
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
    {%- do challenge_fairness._require_stored_column(column) -%}
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
    {%- do challenge_fairness._require_stored_column(column) -%}
    {{ return(run_query('select max(' ~ column ~ ') from ' ~ this).columns[0].values()[0]) }}
{%- endmacro %}

{#
    An incremental run reads columns of the model's stored table; a table built by an older
    version of the package may lack one: stop with the upgrade sentence (run
    --full-refresh once), not a binder error.
#}
{% macro _require_stored_column(column) -%}
    {%- set stored = adapter.get_columns_in_relation(this) | map(attribute='name') | map('lower') | list -%}
    {%- if stored and (column | lower) not in stored -%}
        {{ exceptions.raise_compiler_error(
            this.identifier ~ ": the stored table " ~ this ~ " lacks column " ~ column
            ~ ", so it was built by an older version of challenge_fairness: run"
            ~ " dbt build --full-refresh once after an upgrade (it rebuilds every table from"
            ~ " the raw tables)") }}
    {%- endif -%}
{%- endmacro %}
