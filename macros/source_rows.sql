{#
    A relation expression for one raw platform table with a stable `source_row_number`
    (its position in the source), so that every raw row, clean or rejected, can be traced.
    Reads `<raw_parquet_dir>/<table>.parquet` when that var is set, else the dbt source.
    Only the contract's columns (`platform_source_columns`) are read: the required ones
    always (a missing one fails with its name), the optional ones when the raw table has
    them; any other raw column is ignored, so it cannot collide with an internal name.
#}
{% macro source_rows(table_name) -%}
    {{ return(adapter.dispatch('source_rows', 'challenge_fairness')(table_name)) }}
{%- endmacro %}

{% macro default__source_rows(table_name) -%}
    {%- set relation = source('platform', table_name) -%}
    {%- set parquet_dir = var('raw_parquet_dir', none) -%}
    {%- if parquet_dir -%}
        {{ exceptions.raise_compiler_error(
            "raw_parquet_dir is supported on DuckDB only; on " ~ target.type
            ~ " point the `platform` source at tables instead.") }}
    {%- endif -%}
    (
        select {{ challenge_fairness._contract_column_list(table_name, relation) }},
            row_number() over () as source_row_number
        from {{ relation }}
    )
{%- endmacro %}

{#
    On Spark a raw table is a file-based table (parquet, Delta, ...): a row's number is its
    position in its file (`_metadata.row_index`, the number DuckDB's `file_row_number` gives
    for the same file) after the rows of the files whose paths sort before it. The same
    files give the same numbers; files added by an append may sort among the old ones
    (Spark names part files at random), so a number holds for the run that gave it, which
    is all the Spark path needs: it rebuilds the scan stage in full on every run.
#}
{% macro spark__source_rows(table_name) -%}
    {%- set relation = source('platform', table_name) -%}
    {%- if var('raw_parquet_dir', none) -%}
        {{ exceptions.raise_compiler_error(
            "raw_parquet_dir is supported on DuckDB only; on " ~ target.type ~ " register the "
            ~ "files as tables of the raw schema (dbt run-operation register_raw_parquet_tables).") }}
    {%- endif -%}
    {%- set columns = challenge_fairness._contract_column_list(table_name, relation) -%}
    (
        select {{ columns }}, files.rows_before + numbered._cf_row_index as source_row_number
        from (
            select {{ columns }},
                _metadata.file_path as _cf_file_path,
                _metadata.row_index as _cf_row_index
            from {{ relation }}
        ) as numbered
        inner join (
            select
                _cf_file_path,
                sum(count(*)) over (order by _cf_file_path) - count(*) as rows_before
            from (select _metadata.file_path as _cf_file_path from {{ relation }}) as rows_by_file
            group by _cf_file_path
        ) as files
            on numbered._cf_file_path = files._cf_file_path
    )
{%- endmacro %}

{% macro duckdb__source_rows(table_name) -%}
    {%- set relation = source('platform', table_name) -%}
    {%- set location = challenge_fairness.raw_parquet_location(table_name) -%}
    {%- set with_rows = (location.files | selectattr('rows', 'gt', 0) | list) if location else [] -%}
    {%- if location and location.kind == 'folder' and with_rows -%}
        {{ challenge_fairness._parquet_folder_rows(table_name, with_rows) }}
    {%- elif location or var('raw_parquet_dir', none) -%}
        {#- one file (or a folder whose files hold no row: its first file gives the columns) -#}
        {%- set path = location.files[0].path if location else
            (var('raw_parquet_dir') | string).rstrip('/') ~ '/' ~ table_name ~ '.parquet' -%}
        {%- set parquet = 'read_parquet(' ~ challenge_fairness.sql_string_literal(path) -%}
        (
            select {{ challenge_fairness._contract_column_list(table_name, parquet ~ ')', 'file_row_number') }},
                file_row_number as source_row_number
            from {{ parquet }}, file_row_number = true)
        )
    {%- else -%}
        (
            select {{ challenge_fairness._contract_column_list(table_name, relation, 'rowid') }},
                rowid as source_row_number
            from {{ relation }}
        )
    {%- endif -%}
{%- endmacro %}

{#
    The rows of a folder of parquet files (`files`, from raw_parquet_location, each with
    rows): one scan per file, its row numbers offset by the rows of the files before it.
    The offsets are constants, so a filter on the row number (a run's watermark) becomes
    one on each file's own row numbers, and DuckDB skips every file wholly below it: a
    daily run reads the new files. A contract column that only some files have (an
    optional column added later) is NULL in the others.
#}
{% macro _parquet_folder_rows(table_name, files) -%}
    {%- set contract = challenge_fairness.platform_source_columns()[table_name] -%}
    {%- set present = [] -%}
    {%- for file in files -%}{%- do present.extend(file.columns) -%}{%- endfor -%}
    {%- if 'file_row_number' in present -%}
        {{ exceptions.raise_compiler_error(
            "raw table " ~ table_name ~ " has a column named 'file_row_number', which the reader "
            ~ "reserves for the row number staging traces every row by: rename or drop it.") }}
    {%- endif -%}
    {%- set columns = contract['required'] + (contract['optional'] | select('in', present) | list) -%}
    (
        {%- for file in files %}
        select
            {%- for column in columns %}
            {{ column if column in file.columns else 'null as ' ~ column }},
            {%- endfor %}
            file_row_number + {{ file.rows_before }} as source_row_number
        from read_parquet({{ challenge_fairness.sql_string_literal(file.path) }}, file_row_number = true,
            hive_partitioning = {{ 'true' if file.partitioned else 'false' }})
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- endfor %}
    )
{%- endmacro %}

{#
    The select list of `table_name`'s contract columns read from `raw` (a relation or
    table function): required columns always, optional ones the raw table has. At parse
    time (nothing is queried) every contract column. A raw column named `reserved` (the
    reader's row-number column: `rowid` of a table, `file_row_number` of a parquet file)
    would shadow the row number every rejection is traced by: the run stops naming it.
#}
{% macro _contract_column_list(table_name, raw, reserved=none) -%}
    {%- set contract = challenge_fairness.platform_source_columns()[table_name] -%}
    {%- set columns = contract['required'] + contract['optional'] -%}
    {%- if execute -%}
        {%- set present = challenge_fairness.relation_column_names(raw) -%}
        {%- if reserved and reserved in present -%}
            {{ exceptions.raise_compiler_error(
                "raw table " ~ table_name ~ " has a column named '" ~ reserved ~ "', which the reader "
                ~ "reserves for the row number staging traces every row by: rename or drop it.") }}
        {%- endif -%}
        {%- set columns = contract['required'] + (contract['optional'] | select('in', present) | list) -%}
    {%- endif -%}
    {{- columns | join(', ') -}}
{%- endmacro %}

{#
    Test: `column_name`, an integer row number such as `source_row_number`, holds no value
    twice. The failure count is the number of surplus rows (rows - distinct values).
    On DuckDB it costs one scan instead of a hash table over every row: the values are cut
    into blocks of 65,536 (`>> 16`), and a bitmap per block (`bitstring_agg`, 8 KiB) has a
    bit set per distinct value, so surplus rows = rows - set bits; a failing row names the
    first value of its block. Memory is 8 KiB per block holding any value: small for
    dense numbers such as row numbers, large for sparse ones (use `unique` for those).
#}
{% test unique_row_number(model, column_name) %}
    {{- config(fail_calc='coalesce(sum(surplus_rows), 0)') -}}
    {{- adapter.dispatch('test_unique_row_number', 'challenge_fairness')(model, column_name) -}}
{% endtest %}

{% macro default__test_unique_row_number(model, column_name) -%}
    select
        {{ column_name }},
        count(*) - 1 as surplus_rows
    from {{ model }}
    where {{ column_name }} is not null
    group by {{ column_name }}
    having count(*) > 1
{%- endmacro %}

{% macro duckdb__test_unique_row_number(model, column_name) -%}
    with

    blocks as (
        select
            ({{ column_name }} >> 16) * 65536 as block_start,
            count(*) - bit_count(bitstring_agg({{ column_name }} & 65535, 0, 65535))
                as surplus_rows
        from {{ model }}
        where {{ column_name }} is not null
        group by {{ column_name }} >> 16
    )

    select * from blocks
    where surplus_rows > 0
{%- endmacro %}
