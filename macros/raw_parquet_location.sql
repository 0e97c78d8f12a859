{#
    Where the raw table `table_name` lies in the parquet folder `raw_parquet_dir`, looked
    up when the run executes (none when the var is unset or the table is in neither form):
    - `<dir>/<table>.parquet`, one file: {'kind': 'file', 'path': ..., 'files': [that file]};
    - `<dir>/<table>/`, a folder of parquet files as a lake writes them (a file per day or
      part, Hive partitions `<key>=<value>/` allowed, at any depth): {'kind': 'folder',
      'path': the folder, 'files': [...]}. Files and folders whose name starts with `_` or
      `.` are not data (`_SUCCESS`, `_delta_log/`, `.part-0.crc`) and are skipped.
    Each file is {'path', 'name' (the path within the table's folder), 'rows', 'bytes',
    'rows_before', 'partitioned', 'columns'} in arrival order: by path (the folder's files
    sort by their names, folder names included, by code point as Python, DuckDB and Spark
    compare text: `B.parquet` before `a.parquet`; Jinja's `sort` would ignore case), then by
    row within a file, so a row's number is `rows_before` + its row in the file. Its
    `columns` are the file's own top-level columns (lower-cased; none for a file without
    rows) plus the Hive partition keys of its path.
    A table in both forms stops the run: which one is meant is not for the package to guess.
    At parse time (nothing is read) the single file is assumed. Looked up once per
    invocation (macro invocation_cache): every node of a run sees the same files.
#}
{% macro raw_parquet_location(table_name) -%}
    {%- set parquet_dir = var('raw_parquet_dir', none) -%}
    {%- if not parquet_dir -%}{{ return(none) }}{%- endif -%}
    {%- set folder = (parquet_dir | string).rstrip('/') -%}
    {%- set single = folder ~ '/' ~ table_name ~ '.parquet' -%}
    {%- if not execute -%}
        {{ return({'kind': 'file', 'path': single, 'files': [{'path': single, 'name': table_name ~ '.parquet', 'rows': 0,
            'bytes': 0, 'rows_before': 0, 'partitioned': false, 'columns': []}]}) }}
    {%- endif -%}
    {%- set cache = challenge_fairness.invocation_cache() -%}
    {%- set key = 'raw_parquet_location:' ~ folder ~ ':' ~ table_name -%}
    {%- if key not in cache -%}
        {%- do cache.update({key: challenge_fairness._raw_parquet_location_listed(folder, table_name)}) -%}
    {%- endif -%}
    {{ return(cache[key]) }}
{%- endmacro %}

{#- raw_parquet_location looked up (its glob and the files' parquet metadata) -#}
{% macro _raw_parquet_location_listed(folder, table_name) -%}
    {%- set single = folder ~ '/' ~ table_name ~ '.parquet' -%}
    {%- set table_folder = folder ~ '/' ~ table_name -%}
    {%- set listed = run_query(
        'select file from glob(' ~ challenge_fairness.sql_string_literal(single) ~ ')'
        ~ ' union all select file from glob('
        ~ challenge_fairness.sql_string_literal(table_folder ~ '/**/*.parquet') ~ ')'
    ).columns[0].values() | list -%}
    {%- set in_folder = [] -%}
    {%- set has_single = [] -%}
    {%- for file in listed -%}
        {%- set relative = file[table_folder | length + 1:] if file.startswith(table_folder ~ '/') else none -%}
        {%- if relative is none -%}
            {%- do has_single.append(file) -%}
        {%- else -%}
            {%- set hidden = [] -%}
            {%- for part in relative.split('/') if part[:1] in ['_', '.'] -%}{%- do hidden.append(part) -%}{%- endfor -%}
            {%- do in_folder.append(file) if not hidden -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if has_single and in_folder -%}
        {{ exceptions.raise_compiler_error(
            "raw table " ~ table_name ~ " is both a file (" ~ single ~ ") and a folder of parquet files ("
            ~ table_folder ~ "/) in raw_parquet_dir: keep one of them.") }}
    {%- endif -%}
    {%- if not has_single and not in_folder -%}{{ return(none) }}{%- endif -%}
    {%- set files = has_single or (in_folder | sort(case_sensitive=true)) -%}
    {%- set paths = [] -%}
    {%- for file in files -%}{%- do paths.append(challenge_fairness.sql_string_literal(file)) -%}{%- endfor -%}
    {%- set path_list = '[' ~ (paths | join(', ')) ~ ']' -%}
    {%- set metadata = run_query(
        'select file_name, num_rows, file_size_bytes from parquet_file_metadata(' ~ path_list ~ ')') -%}
    {%- set sizes = {} -%}
    {%- for row in metadata.rows -%}{%- do sizes.update({row[0]: [row[1], row[2]]}) -%}{%- endfor -%}
    {#- the top-level columns of each file, from its first row group's column chunks (a
        file without rows has none, and adds no row to read) -#}
    {%- set chunks = run_query(
        "select distinct file_name, lower(split_part(path_in_schema, ', ', 1))"
        ~ ' from parquet_metadata(' ~ path_list ~ ') where row_group_id = 0') -%}
    {%- set columns = {} -%}
    {%- for row in chunks.rows -%}
        {%- do columns.setdefault(row[0], []).append(row[1]) -%}
    {%- endfor -%}
    {%- set located = [] -%}
    {%- set rows_before = namespace(value=0) -%}
    {%- for file in files -%}
        {%- set partition_keys = [] -%}
        {%- if in_folder -%}
            {%- for part in file[table_folder | length + 1:].split('/')[:-1] if '=' in part -%}
                {%- do partition_keys.append(part.split('=')[0] | lower) -%}
            {%- endfor -%}
        {%- endif -%}
        {%- set rows = sizes[file][0] | int -%}
        {%- do located.append({
            'path': file, 'name': file[table_folder | length + 1:] if in_folder else file.split('/')[-1],
            'rows': rows, 'bytes': sizes[file][1] | int,
            'rows_before': rows_before.value, 'partitioned': partition_keys | length > 0,
            'columns': columns.get(file, []) + partition_keys}) -%}
        {%- set rows_before.value = rows_before.value + rows -%}
    {%- endfor -%}
    {{ return({'kind': 'folder' if in_folder else 'file',
        'path': table_folder if in_folder else single, 'files': located}) }}
{%- endmacro %}

{#
    The raw table `table_name` of the parquet folder as one relation over all its columns
    (a `read_parquet` call), for run-start checks of its columns and types: its file, or
    its folder's files holding rows (all of them when none does) read by name, so that a
    column some files lack is NULL there. None when the table is in neither form.
#}
{% macro raw_parquet_relation(table_name) -%}
    {%- set location = challenge_fairness.raw_parquet_location(table_name) -%}
    {%- if location is none -%}{{ return(none) }}{%- endif -%}
    {%- set files = (location.files | selectattr('rows', 'gt', 0) | list) or location.files -%}
    {%- set paths = [] -%}
    {%- for file in files -%}{%- do paths.append(challenge_fairness.sql_string_literal(file.path)) -%}{%- endfor -%}
    {{ return("read_parquet([" ~ (paths | join(', ')) ~ "], union_by_name = true, hive_partitioning = "
        ~ ('true' if files | selectattr('partitioned') | list else 'false') ~ ")") }}
{%- endmacro %}

{#
    The number of rows of raw table `table_name` when it is read from parquet
    (var raw_parquet_dir), from the files' metadata; none otherwise. Its rows are then
    numbered 0 to that number - 1 with no gap (macro source_rows: a file's row numbers, a
    folder's files one after another), so the rows up to a row number can be counted
    without reading them. A table of the database (rowid) is not counted here: deletes
    leave gaps in its row ids.
#}
{% macro raw_parquet_row_count(table_name) -%}
    {%- set location = challenge_fairness.raw_parquet_location(table_name) if execute else none -%}
    {{ return(none if location is none else location.files | sum(attribute='rows')) }}
{%- endmacro %}
