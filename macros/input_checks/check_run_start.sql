{#
    on-run-start, after check_raw_inputs: what else can be seen before anything is built,
    so that it stops the run in seconds with its own cause instead of minutes later with
    another one. Each problem is one sentence; all are listed in one message.
      - an optional table that is present lacks a column its staging model reads (it would
        fail as a binder error): the table, the column, what the table has; or a column of
        it has a type that is neither its contract's nor a safe cast (check_raw_types.sql);
      - fairness_gate_suites names a suite twice;
      - raw_parquet_dir or parquet_export_dir is a file, not a folder, or holds glob
        characters (DuckDB would expand * ? [ in a path);
      - an incremental model's stored table lacks a column its YAML declares: it was built
        by an older version (the upgrade sentence, instead of a binder error mid-run);
      - bias_scan_date before every attempt (the scan would judge nothing), or after the run
        date plus plausible_timestamp_days_ahead (a scan filed under a day that has not come);
      - trim_proportion so large, for min_family_attempts, that a judged family cell keeps a
        single score after trimming (Yuen's variance needs two): the verdict would call
        such cells not computable wherever they occur.
    Commands that do not build skip it, as check_raw_inputs does.
#}
{% macro check_run_start() -%}
    {%- if not execute or invocation_args_dict.get('which') not in ['build', 'run', 'test', 'retry'] -%}
        {{ return('') }}
    {%- endif -%}
    {%- set problems = [] -%}
    {%- set selected_models = [] -%}
    {%- for unique_id in selected_resources -%}
        {%- do selected_models.append(unique_id.split('.')[-1]) -%}
    {%- endfor -%}

    {#- Duplicated gate suites. -#}
    {%- set suites = var('fairness_gate_suites', none) -%}
    {%- if suites is not none and suites is iterable and suites is not string -%}
        {%- set seen = [] -%}
        {%- for suite in suites -%}
            {%- if suite in seen -%}
                {%- do problems.append("fairness_gate_suites lists " ~ suite ~ " twice: name each suite once") -%}
            {%- endif -%}
            {%- do seen.append(suite) -%}
        {%- endfor -%}
    {%- endif -%}

    {#- Folder paths: no glob characters, not a file. -#}
    {%- if target.type == 'duckdb' -%}
        {%- for name in ['raw_parquet_dir', 'parquet_export_dir'] -%}
            {%- set path = var(name, none) -%}
            {%- if path -%}
                {%- set path = (path | string).rstrip('/') -%}
                {%- if modules.re.search('[*?\\[\\]{}]', path) -%}
                    {%- do problems.append(name ~ " = '" ~ path ~ "' holds glob characters (* ? [ ] { }),"
                        ~ " which DuckDB would expand: rename the folder") -%}
                {%- else -%}
                    {%- set matched = run_query("select count(*) from glob("
                        ~ challenge_fairness.sql_string_literal(path) ~ ")").rows[0][0] -%}
                    {%- if matched > 0 -%}
                        {%- do problems.append(name ~ " = '" ~ path ~ "' is a file, not a folder") -%}
                    {%- endif -%}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}

    {#- A scan date before every attempt: the scan would judge nothing (one aggregate over
        the raw timestamps, only when bias_scan_date is set). -#}
    {%- set scan_date = var('bias_scan_date', none) -%}
    {%- if scan_date and target.type == 'duckdb' and 'base_platform__attempts' in selected_models
        and not challenge_fairness.scan_stage_from_files() -%}
        {%- set first = run_query("select cast(min(try_cast(submitted_at as timestamp)) as date) from "
            ~ challenge_fairness._raw_table_relation('attempts')).rows[0][0] -%}
        {%- if first is not none and (scan_date | string) < (first | string) -%}
            {%- do problems.append("bias_scan_date = " ~ scan_date ~ " is before every attempt (the"
                ~ " first was submitted on " ~ first ~ "): the scan would judge nothing; give a"
                ~ " date on or after " ~ first) -%}
        {%- endif -%}
    {%- endif -%}

    {#- A scan date after the run date (what staging still accepts as plausible): no attempt
        can be that late, and the scan would be filed under a day that has not come. -#}
    {%- if scan_date -%}
        {%- set days_ahead = var('plausible_timestamp_days_ahead') | int -%}
        {%- set latest = (modules.datetime.datetime.utcnow().date()
            + modules.datetime.timedelta(days=days_ahead)) | string -%}
        {%- if (scan_date | string) > latest -%}
            {%- do problems.append("bias_scan_date = " ~ scan_date ~ " is after the run date (UTC) plus"
                ~ " plausible_timestamp_days_ahead = " ~ days_ahead ~ " (" ~ latest ~ "): no attempt"
                ~ " can be that late; give a date on or before " ~ latest
                ~ " (or null: the date of the latest clean attempt)") -%}
        {%- endif -%}
    {%- endif -%}

    {#- A trim that leaves one score in a judged cell. Trimming g = floor(t n) scores from
        each tail of a cell of n keeps h = n - 2g; h < 2 happens only for odd n with
        t >= (n - 1) / 2n, a bound that grows with n, so the smallest odd n at or above
        min_family_attempts is the cell to check (the UDF's own arithmetic, stats.py). -#}
    {%- set trim = var('trim_proportion') | float -%}
    {%- set smallest = var('min_family_attempts') | int -%}
    {%- set odd = smallest if smallest % 2 == 1 else smallest + 1 -%}
    {%- set kept = odd - 2 * ((trim * odd) | int) -%}
    {%- if kept < 2 -%}
        {%- do problems.append("trim_proportion = " ~ trim ~ " keeps a single score of a family cell"
            ~ " of " ~ odd ~ " attempts (min_family_attempts = " ~ smallest ~ "), and Yuen's"
            ~ " variance needs two: such cells could not be judged; use a trim_proportion below "
            ~ "%.4f" | format((odd - 1) / (2 * odd)) ~ " or a larger min_family_attempts") -%}
    {%- endif -%}

    {#- Incremental models (selected, not a full refresh) whose stored table lacks a column
        the model declares: a database built by an older version. One catalog query per
        model; the columns an incremental run reads that the YAML leaves undeclared are
        guarded where they are read (macro _require_stored_column). A model with meta
        `restaged_in_full` stages every row again into synced columns then (macro
        restaging), so it needs no full refresh. -#}
    {%- if not flags.FULL_REFRESH -%}
        {%- for unique_id in selected_resources -%}
            {%- set node = graph.nodes.get(unique_id) -%}
            {%- if node is not none and node.resource_type == 'model'
                and node.package_name == 'challenge_fairness'
                and node.config.materialized == 'incremental' and node.columns
                and not (node.config.meta or {}).get('restaged_in_full') -%}
                {%- set stored = adapter.get_relation(
                    database=node.database, schema=node.schema, identifier=node.alias) -%}
                {%- if stored is not none -%}
                    {%- set stored_columns = adapter.get_columns_in_relation(stored)
                        | map(attribute='name') | map('lower') | list -%}
                    {%- set missing = node.columns.keys() | map('lower')
                        | reject('in', stored_columns) | list -%}
                    {%- if stored_columns and missing -%}
                        {%- do problems.append(node.name ~ ": the stored table " ~ stored
                            ~ " lacks column" ~ ("s " if missing | length > 1 else " ")
                            ~ (missing | join(', ')) ~ ", so it was built by"
                            ~ " an older version of challenge_fairness: run dbt build --full-refresh"
                            ~ " once after an upgrade (it rebuilds every table from the raw tables)") -%}
                    {%- endif -%}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}

    {#- Optional tables present without a column their staging model reads. -#}
    {%- if target.type == 'duckdb' and not challenge_fairness.scan_stage_from_files() -%}
        {%- for table, columns in challenge_fairness._optional_input_columns().items() -%}
            {%- if ('base_platform__' ~ table) in selected_models and challenge_fairness.source_table_exists(table) -%}
                {%- set types = challenge_fairness._raw_column_types(
                    challenge_fairness._raw_table_relation(table)) -%}
                {%- set present = types.keys() | list -%}
                {%- set missing = columns | map(attribute=0) | reject('in', present) | list -%}
                {%- if missing -%}
                    {%- do problems.append("optional table " ~ table ~ " is present but lacks column(s) "
                        ~ (missing | join(', ')) ~ " (it has: " ~ (present | join(', '))
                        ~ "); add them, or leave the table out (its detectors are then unavailable)") -%}
                {%- else -%}
                    {%- do problems.extend(challenge_fairness._raw_type_problems(
                        table, 'the raw input', types, columns)) -%}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}

    {%- if problems -%}
        {{ exceptions.raise_compiler_error(
            "challenge_fairness stops before building anything:\n  - " ~ (problems | join('\n  - '))) }}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}


{#
    The columns each optional table must have when it is present (the ones its base model
    reads; optional columns of optional tables, e.g. reference_corpus.published_at, are not
    listed), with their contract types (docs/source_contract.md). Keep in step with
    models/staging/platform/base/base_platform__<table>.sql.
#}
{% macro _optional_input_columns() -%}
    {{ return({
        'test_cases': [('test_case_id', 'VARCHAR'), ('challenge_id', 'VARCHAR'), ('input_text', 'VARCHAR')],
        'test_results': [('attempt_id', 'VARCHAR'), ('test_case_id', 'VARCHAR'), ('passed', 'BOOLEAN')],
        'rubric_items': [('rubric_item_id', 'VARCHAR'), ('challenge_id', 'VARCHAR'),
            ('description', 'VARCHAR'), ('max_points', 'DOUBLE')],
        'rubric_scores': [('attempt_id', 'VARCHAR'), ('rubric_item_id', 'VARCHAR'), ('points', 'DOUBLE')],
        'challenge_files': [('challenge_id', 'VARCHAR'), ('file_path', 'VARCHAR'), ('content', 'VARCHAR')],
        'reference_corpus': [('document_id', 'VARCHAR'), ('source', 'VARCHAR'), ('content', 'VARCHAR')],
    }) }}
{%- endmacro %}


{# The raw table `table_name` as SQL to read from (read_parquet of its file or folder, or the quoted table). #}
{% macro _raw_table_relation(table_name) -%}
    {%- if var('raw_parquet_dir', none) -%}
        {{ return(challenge_fairness.raw_parquet_relation(table_name)) }}
    {%- endif -%}
    {%- for node in graph.sources.values() if node.package_name == 'challenge_fairness'
        and node.source_name == 'platform' and node.name == table_name -%}
        {{ return(challenge_fairness._quoted_relation(node.database, node.schema, node.identifier)) }}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error("no source platform." ~ table_name) }}
{%- endmacro %}
