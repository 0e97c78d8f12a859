{#
    The CTEs of an incremental run of a model that validates an append-only raw table
    (base_platform__attempts, __test_results, __rubric_scores): which raw rows it
    validates again, read in one pass over `raw` (a relation expression with
    `source_row_number`), and the check of the rows it validated before.

    - `watermark`: the largest source_row_number folded (column `watermark_column` of the
      model's table);
    - `reread_keys`: the keys (`keys`, a list of raw columns) of the new rows (past the
      watermark: a filter the scan pushes down) and of the rows kept one by one because
      they were rejected (`rejected_before`, a condition on the model's table), as they
      were read then;
    - `scanned`: one pass over `raw`. A row validated again is a group of its own: a new
      row, a row rejected before, a row that meets one of `also_validated` (SQL conditions
      on alias `raw`), and every row sharing a key with those. The rows validated clean
      before fall into one group besides, which sums their count and `row_checksum`
      (`checksum`, an expression on alias `raw`: the hash of the values as read);
    - `source`: the rows validated again, with `columns` (raw columns) as read;
    - `raw_kept`: the count and checksum of the rows clean before as the raw table holds
      them now, and the number of rejected rows whose key was edited in place (their new
      key's other copies are not read again: the model stops the run on any).
    The model compares `raw_kept` with what it stored, and stops the run on a difference.
#}
{% macro revalidated_rows(raw, keys, columns, checksum, also_validated=[], rejected_before='rejection_reason is not null', watermark_column='source_row_number') -%}
{#- The model's table is read where needed, not through a CTE: DuckDB would materialise it. -#}
watermark as (
    select coalesce(max({{ watermark_column }}), -1) as last_row_number
    from {{ this }}
),

reread_keys as (
    select
        {%- for key in keys %}
        cast(raw.{{ key }} as varchar) as {{ key }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ raw }} as raw
    where raw.source_row_number > (select last_row_number from watermark)
    union
    select {{ keys | join(', ') }}
    from {{ this }}
    where {{ rejected_before }}
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
        count(*) filter (where key_changed) as changed_keys
    from (
        select
            raw.*,
            {{ checksum }} as row_checksum,
            raw.source_row_number > (select last_row_number from watermark)
                or rejected.source_row_number is not null
                {%- for condition in also_validated %}
                or {{ condition }}
                {%- endfor %}
                or exists (
                    select 1
                    from reread_keys
                    where {% for key in keys -%}
                        reread_keys.{{ key }} = cast(raw.{{ key }} as varchar)
                        {{- ' and ' if not loop.last }}
                    {%- endfor %}
                ) as is_validated,
            raw.source_row_number <= (select last_row_number from watermark)
                and rejected.source_row_number is null as was_clean,
            rejected.source_row_number is not null
                and (
                    {%- for key in keys %}
                    cast(raw.{{ key }} as varchar) is distinct from rejected.{{ key }}
                    {{- ' or' if not loop.last }}
                    {%- endfor %}
                ) as key_changed
        from {{ raw }} as raw
        left join (
            select source_row_number, {{ keys | join(', ') }}
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
