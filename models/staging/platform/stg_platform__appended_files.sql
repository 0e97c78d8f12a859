{#
    One row per parquet file of an append-only raw table (attempts, test_results,
    rubric_scores) read from a folder of files (`<raw_parquet_dir>/<table>/`): its path
    within the folder (moving the whole folder changes nothing), rows, size and the row
    number its rows start at (rows are numbered in arrival order: file path, then row).
    Empty when no such table is read from a folder.

    The guard of incremental runs on folders, run before the base models fold new rows:
    a lake appends a day as a new file, so every file listed here by the last run must
    still be there with the same rows and size, and a new file must sort after them
    (else the rows already folded would take other numbers), by code point as the files
    are numbered (macro raw_parquet_location). On a difference the run
    stops before anything is folded, naming the file and asking for --full-refresh, from
    file metadata alone (no row is read). Every base model waits for it (`-- depends_on`):
    no raw table is staged from a folder whose history changed, and the base models become
    ready together when it ends, so that the longest of them (the attempts, on the run's
    serial start) is not queued behind the others' tests (dbt runs nodes in the order they
    become ready). One file per table (`<table>.parquet`) is
    rewritten whole when a day is added, so only the existing rules apply there: a clean
    row folded before must still be there (its count), and as validated (the history
    check).
#}
{#- The contract (constraints in the YAML) on DuckDB; a Spark table of parquet files cannot
    hold NOT NULL constraints. #}
{{ config(materialized='table', contract={'enforced': target.type == 'duckdb'}) }}
{%- set appended_tables = ['attempts', 'test_results', 'rubric_scores'] %}
{%- set listed = [] %}
{%- if execute and target.type == 'duckdb' and not scan_stage_from_files() %}
{%- for table_name in appended_tables %}
{%- set location = raw_parquet_location(table_name) %}
{%- if location and location.kind == 'folder' %}
            {%- for file in location.files %}
                {%- do listed.append({'table': table_name, 'folder': location.path, 'file': file}) %}
            {%- endfor %}
        {%- endif %}
{%- endfor %}
{%- endif %}
{%- if execute and invocation_args_dict.get('which') in ['build', 'run', 'retry']
    and not flags.FULL_REFRESH %}
    {%- set stored = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) %}
    {%- if stored is not none %}
        {%- set previous = [] %}
        {%- for row in run_query('select source_table, file_path, file_rows, file_bytes from ' ~ stored).rows %}
            {%- do previous.append({'table': row[0], 'path': row[1], 'rows': row[2], 'bytes': row[3]}) %}
        {%- endfor %}
        {%- set problems = [] %}
        {%- for table_name in appended_tables %}
            {%- set before = previous | selectattr('table', 'equalto', table_name) | list %}
            {%- set now = listed | selectattr('table', 'equalto', table_name) | list %}
            {%- set now_by_path = {} %}
            {%- for entry in now %}{%- do now_by_path.update({entry.file.name: entry.file}) %}{%- endfor %}
            {%- for old in before %}
                {%- set file = now_by_path.get(old.path) %}
                {%- set shown = (now[0].folder if now else old.folder) ~ '/' ~ old.path %}
                {%- if file is none %}
                    {%- do problems.append(shown ~ ' was removed') %}
                {%- elif file.rows != old.rows or file.bytes != old.bytes %}
                    {%- do problems.append(shown ~ ' was rewritten (' ~ old.rows ~ ' rows, ' ~ old.bytes
                        ~ ' bytes before; ' ~ file.rows ~ ' rows, ' ~ file.bytes ~ ' bytes now)') %}
                {%- endif %}
            {%- endfor %}
            {%- if before %}
                {%- set read_paths = before | map(attribute='path') | list %}
                {%- set last_before = read_paths | max(case_sensitive=true) %}
                {%- for entry in now if entry.file.name not in read_paths and entry.file.name < last_before %}
                    {%- do problems.append(entry.file.path ~ ' is new but sorts before ' ~ last_before
                        ~ ', a file already read (files are read in path order)') %}
                {%- endfor %}
            {%- endif %}
        {%- endfor %}
        {%- if problems %}
            {{ exceptions.raise_compiler_error(
                "stg_platform__appended_files: the raw files already read changed:\n  - "
                ~ (problems | join('\n  - '))
                ~ "\nA folder of raw files must grow by new files only, named to sort after the"
                ~ " others (e.g. attempts/2026-07-01.parquet). The raw table must be an append-only"
                ~ " log; run dbt build --full-refresh to validate it again.") }}
        {%- endif %}
    {%- endif %}
{%- endif %}

with

files as (
    {%- if listed %}
    select * from (
        values
        {%- for entry in listed %}
        (
            {{ sql_string_literal(entry.table) }},
            {{ sql_string_literal(entry.folder) }},
            {{ sql_string_literal(entry.file.name) }},
            cast({{ entry.file.rows }} as bigint),
            cast({{ entry.file.bytes }} as bigint),
            cast({{ entry.file.rows_before }} as bigint)
        ){{ ',' if not loop.last }}
        {%- endfor %}
    ) as listed (source_table, source_folder, file_path, file_rows, file_bytes, first_row_number)
    {%- else %}
    select
        cast(null as string) as source_table,
        cast(null as string) as source_folder,
        cast(null as string) as file_path,
        cast(null as bigint) as file_rows,
        cast(null as bigint) as file_bytes,
        cast(null as bigint) as first_row_number
    where false
    {%- endif %}
)

select * from files
