{#
    on-run-start: before anything is built, check that the required raw tables the selected
    models read exist with the contract's columns, in the parquet folder `raw_parquet_dir`
    (a file `<table>.parquet` or a folder `<table>/` whose files with rows all have them)
    or in schema `challenge_fairness_raw_schema` of the target database. Any problem stops
    the run with one message: which table or column is missing or has a type the contract
    does not accept (check_raw_types.sql), where it looked, and what the contract expects. Optional tables are checked by check_run_start (columns, types). Commands that do not
    build (parse, compile, docs, seed, run-operation) and selections that read no raw
    table skip the check.
#}
{% macro check_raw_inputs() -%}
    {%- if not execute or invocation_args_dict.get('which') not in ['build', 'run', 'test', 'retry'] -%}
        {{ return('') }}
    {%- endif -%}
    {%- set database_problem = challenge_fairness._database_name_problem() -%}
    {%- if database_problem -%}
        {{ exceptions.raise_compiler_error(
            "challenge_fairness stops before building anything:\n  - " ~ database_problem) }}
    {%- endif -%}
    {%- set contract = challenge_fairness._raw_input_contract() -%}
    {#- The required platform sources the selected nodes read, in contract order. -#}
    {%- set read_sources = {} -%}
    {%- for unique_id in selected_resources -%}
        {%- set node = graph.nodes.get(unique_id) -%}
        {%- if node is not none and node.resource_type == 'model' -%}
            {%- for dependency in node.depends_on.nodes -%}
                {%- set source_node = graph.sources.get(dependency) -%}
                {%- if source_node is not none and source_node.package_name == 'challenge_fairness'
                    and source_node.source_name == 'platform' and source_node.name in contract -%}
                    {%- do read_sources.update({source_node.name: source_node}) -%}
                {%- endif -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set tables = contract.keys() | select('in', read_sources) | list -%}
    {%- if not tables -%}{{ return('') }}{%- endif -%}

    {%- set problems = [] -%}
    {%- set found = {} -%}
    {%- set broken = [] -%}
    {%- set relations = {} -%}
    {%- set parquet_dir = var('raw_parquet_dir', none) -%}
    {%- if parquet_dir -%}
        {%- set folder = (parquet_dir | string).rstrip('/') -%}
        {%- set where = "the parquet folder raw_parquet_dir = '" ~ folder ~ "'" -%}
        {#- DuckDB would expand * ? [ ] { } in the folder's path (a glob): refused. -#}
        {%- set has_glob = modules.re.search('[*?\\[\\]{}]', folder) is not none -%}
        {#- what the folder holds: its files and its first-level folders (tables as folders) -#}
        {%- set files = [] if has_glob else run_query(
            "select distinct split_part(file[" ~ (folder | length + 2) ~ ":], '/', 1)"
            ~ " || case when file[" ~ (folder | length + 2) ~ ":] like '%/%' then '/' else '' end"
            ~ " from glob(" ~ challenge_fairness.sql_string_literal(folder ~ '/**') ~ ") order by 1"
        ).columns[0].values() | list -%}
        {%- if has_glob -%}
            {%- do problems.append("raw_parquet_dir = '" ~ folder ~ "' holds glob characters"
                ~ " (* ? [ ] { }), which DuckDB would expand: rename the folder") -%}
        {%- elif not files -%}
            {%- do problems.append("no files in " ~ where ~ ": the folder does not exist or is empty") -%}
        {%- endif -%}
        {%- for table in tables if files -%}
            {%- set location = challenge_fairness.raw_parquet_location(table) -%}
            {%- set with_rows = (location.files | selectattr('rows', 'gt', 0) | list) if location else [] -%}
            {%- if location is none -%}
                {%- do problems.append("missing " ~ table ~ ".parquet (or a folder " ~ table
                    ~ "/ of parquet files) in " ~ where ~ " (found: " ~ (files | join(', ')) ~ ")") -%}
            {%- elif location.kind == 'folder' and with_rows -%}
                {#- every file with rows must have the required columns -#}
                {%- set union = [] -%}
                {%- for file in with_rows -%}
                    {%- set lacking = [] -%}
                    {%- for column, data_type in contract[table] if column not in file.columns -%}
                        {%- do lacking.append(column) -%}
                    {%- endfor -%}
                    {%- if lacking -%}
                        {%- do problems.append("file " ~ file.path ~ " of table " ~ table ~ " lacks column(s) "
                            ~ (lacking | join(', ')) ~ " (it has: " ~ (file.columns | join(', ')) ~ ")") -%}
                        {%- do broken.append(table) if table not in broken -%}
                    {%- endif -%}
                    {%- do union.extend(file.columns | reject('in', union) | list) -%}
                {%- endfor -%}
                {%- do found.update({table: union}) -%}
                {%- do relations.update({table: challenge_fairness.raw_parquet_relation(table)}) -%}
            {%- else -%}
                {%- set described = run_query("describe select * from read_parquet("
                    ~ challenge_fairness.sql_string_literal(location.files[0].path) ~ ")") -%}
                {%- do found.update({table: described.columns[0].values() | map('lower') | list}) -%}
                {%- do relations.update({table: challenge_fairness.raw_parquet_relation(table)}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {%- set first = read_sources[tables[0]] -%}
        {%- set location = ("database '" ~ first.database ~ "'" if first.database else target.type)
            ~ (" (file " ~ target.path ~ ")" if target.get('path') else "") -%}
        {%- set where = "schema '" ~ first.schema ~ "' of " ~ location
            ~ " (var challenge_fairness_raw_schema)" -%}
        {%- set identifiers = [] -%}
        {%- for table in tables -%}{%- do identifiers.append(read_sources[table].identifier) -%}{%- endfor -%}
        {%- set schemas, in_schema = challenge_fairness._raw_schema_columns(
            first.database, first.schema, identifiers) -%}
        {%- if first.schema not in schemas -%}
            {%- do problems.append("no schema '" ~ first.schema ~ "' in " ~ location
                ~ " (schemas there: " ~ (schemas | join(', ') or 'none') ~ ")"
                ~ "; is the database path right? Raw tables go in that schema (var"
                ~ " challenge_fairness_raw_schema), or set raw_parquet_dir to read parquet files") -%}
        {%- else -%}
            {%- for table in tables -%}
                {%- set identifier = read_sources[table].identifier | lower -%}
                {%- if identifier not in in_schema -%}
                    {%- do problems.append("missing table " ~ first.schema ~ "." ~ identifier
                        ~ " in " ~ where ~ " (tables there: "
                        ~ (in_schema.keys() | sort | join(', ') or 'none') ~ ")") -%}
                {%- else -%}
                    {%- do found.update({table: in_schema[identifier]}) -%}
                    {%- do relations.update({table: challenge_fairness._quoted_relation(
                        first.database, first.schema, read_sources[table].identifier)}) -%}
                {%- endif -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endif -%}

    {%- for table in tables if table not in broken -%}
        {%- if table in found -%}
            {%- set missing = [] -%}
            {%- for column, data_type in contract[table] if column not in found[table] -%}
                {%- do missing.append(column) -%}
            {%- endfor -%}
            {%- if missing -%}
                {%- do problems.append("table " ~ table ~ " in " ~ where ~ " lacks column(s) "
                    ~ (missing | join(', ')) ~ " (it has: " ~ (found[table] | join(', ')) ~ ")") -%}
                {%- do broken.append(table) -%}
            {%- elif target.type == 'duckdb' -%}
                {#- Types by contract (check_raw_types.sql): found, expected, safe casts. -#}
                {%- set wrong = challenge_fairness._raw_type_problems(table, where,
                    challenge_fairness._raw_column_types(relations[table]), contract[table]) -%}
                {%- if wrong -%}
                    {%- do problems.extend(wrong) -%}
                    {%- do broken.append(table) -%}
                {%- endif -%}
            {%- endif -%}
        {%- else -%}
            {%- do broken.append(table) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if problems -%}
        {%- set expected = [] -%}
        {%- for table in broken -%}
            {%- set typed = [] -%}
            {%- for column, data_type in contract[table] -%}
                {%- do typed.append(column ~ ' ' ~ data_type) -%}
            {%- endfor -%}
            {%- do expected.append("  " ~ table ~ ": " ~ (typed | join(', '))) -%}
        {%- endfor -%}
        {{ exceptions.raise_compiler_error(
            "challenge_fairness cannot read its raw input (checked before building anything):\n  - "
            ~ (problems | join('\n  - '))
            ~ "\nThe source contract expects these tables and columns (README: Source contract;"
            ~ " optional tables and columns may be absent):\n" ~ (expected | join('\n'))) }}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}


{#
    The schemas of `database`, and {lower-cased table name: [lower-cased column names]} of
    the tables of `schema` (on adapters without an information schema, only the tables
    named in `identifiers` are described).
#}
{% macro _raw_schema_columns(database, schema, identifiers) -%}
    {{ return(adapter.dispatch('_raw_schema_columns', 'challenge_fairness')(database, schema, identifiers)) }}
{%- endmacro %}

{% macro duckdb___raw_schema_columns(database, schema, identifiers) -%}
    {%- set schemas = run_query(
        "select schema_name from information_schema.schemata where catalog_name = '"
        ~ (database | replace("'", "''")) ~ "' order by 1").columns[0].values() | list -%}
    {%- set columns = run_query(
        "select lower(table_name), lower(column_name) from information_schema.columns"
        ~ " where table_catalog = '" ~ (database | replace("'", "''"))
        ~ "' and table_schema = '" ~ (schema | replace("'", "''")) ~ "'"
        ~ " order by table_name, ordinal_position") -%}
    {%- set in_schema = {} -%}
    {%- for row in columns.rows -%}
        {%- do in_schema.setdefault(row[0], []).append(row[1]) -%}
    {%- endfor -%}
    {{ return((schemas, in_schema)) }}
{%- endmacro %}

{% macro default___raw_schema_columns(database, schema, identifiers) -%}
    {%- if not adapter.check_schema_exists(database, schema) -%}
        {{ return(([], {})) }}
    {%- endif -%}
    {%- set in_schema = {} -%}
    {%- for identifier in identifiers -%}
        {%- set relation = adapter.get_relation(database=database, schema=schema, identifier=identifier) -%}
        {%- if relation is not none -%}
            {%- do in_schema.update({identifier | lower:
                adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(([schema], in_schema)) }}
{%- endmacro %}


{#
    A DuckDB file whose name is a schema of the build (raw.duckdb, staging.duckdb): DuckDB
    names the database after its file and cannot bind a view that reads "raw"."raw".<table>
    when a database and a schema share the name (Binder Error: ambiguous reference), so the
    build would fail at its first view over that schema, after minutes. DuckDB also renames
    a file called main, temp or system (main.duckdb becomes main_db), where dbt looks for
    main. The sentence that stops the run, or '' (other adapters: '').
#}
{% macro _database_name_problem() -%}
    {%- set database = (target.get('database') or '') | lower -%}
    {%- if target.type != 'duckdb' or not database -%}{{ return('') }}{%- endif -%}
    {%- set schemas = [] -%}
    {%- set sources = [] if var('raw_parquet_dir', none) else graph.sources.values() | list -%}
    {%- for node in graph.nodes.values() | list + sources
        if node.schema and (node.schema | lower) not in schemas -%}
        {%- do schemas.append(node.schema | lower) -%}
    {%- endfor -%}
    {%- set file = " (file " ~ target.path ~ ")" if target.get('path') else "" -%}
    {%- if database in ['main', 'temp', 'system'] -%}
        {{ return("the database" ~ file ~ " is named '" ~ database ~ "', a name DuckDB reserves"
            ~ " (it calls the file's database " ~ database ~ "_db, where dbt looks for " ~ database
            ~ "): rename the file, e.g. challenge_fairness.duckdb") }}
    {%- elif database in schemas -%}
        {{ return("the database" ~ file ~ " is named '" ~ database ~ "' like the schema '"
            ~ database ~ "' the build reads or writes, and DuckDB cannot bind a view over "
            ~ database ~ "." ~ database ~ ".<table> when a database and a schema share a name"
            ~ " (Binder Error: ambiguous reference), so the build would fail midway: rename the"
            ~ " file, e.g. challenge_fairness.duckdb") }}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}
