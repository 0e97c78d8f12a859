{#
    The checksum of a raw row of an append-only table (attempts, test_results,
    rubric_scores) under alias `relation_alias`: the hash of its row number and of each
    value as staging types it (the expressions of the models' `typed` CTEs, which DuckDB
    then computes once), with whether the raw value is NULL where a typed NULL can also
    come from a value that does not parse. An incremental run compares it with the stored
    one (macro revalidated_rows) to see that a row folded before is still in the raw table
    as it was validated.

    Typed values, not raw ones: the type a reader gives a raw column can change while no
    value does. A lake's new day may hold `score` as DOUBLE where the files before held
    BIGINT (pandas writes a column with a missing value as float64), or `submitted_at` with
    a UTC zone where the files before had none; read as one table, every file then takes the
    wider type, and the hash of a raw 85 (BIGINT) is not the hash of a raw 85.0 (DOUBLE). A
    change the typed values do not see (a text score '85.50' rewritten as '85.5') is not a
    change of the row for the build either.
#}
{% macro raw_row_checksum(table_name, relation_alias) -%}
    {#- each raw column and how its staging model types it -#}
    {%- set typed_as = {
        'attempts': [('attempt_id', 'text'), ('challenge_id', 'text'), ('agent_id', 'text'),
                     ('score', 'number'), ('submitted_at', 'timestamp'), ('approach', 'label')],
        'test_results': [('attempt_id', 'text'), ('test_case_id', 'text'), ('passed', 'boolean')],
        'rubric_scores': [('attempt_id', 'text'), ('rubric_item_id', 'text'),
                          ('points', 'number_from_text')],
    } -%}
    {%- if table_name not in typed_as -%}
        {{ exceptions.raise_compiler_error("raw_row_checksum: no checksum for raw table " ~ table_name) }}
    {%- endif -%}
    {%- set values = [relation_alias ~ '.source_row_number'] -%}
    {%- for column, kind in typed_as[table_name] -%}
        {%- set raw = relation_alias ~ '.' ~ column -%}
        {%- if kind == 'text' -%}
            {%- do values.append('cast(' ~ raw ~ ' as string)') -%}
        {%- elif kind == 'label' -%}
            {%- do values.append("nullif(trim(" ~ challenge_fairness.optional_column(
                table_name, column, 'string', relation_alias) ~ "), '')") -%}
        {%- else -%}
            {#- a typed NULL is also a value that does not parse: whether the raw one is NULL -#}
            {%- if kind == 'number' -%}
                {%- do values.append('try_cast(' ~ raw ~ ' as double)') -%}
            {%- elif kind == 'number_from_text' -%}
                {%- do values.append('try_cast(cast(' ~ raw ~ ' as string) as double)') -%}
            {%- elif kind == 'boolean' -%}
                {%- do values.append('try_cast(cast(' ~ raw ~ ' as string) as boolean)') -%}
            {%- else -%}
                {%- do values.append(challenge_fairness.utc_timestamp(raw, table_name, column)) -%}
            {%- endif -%}
            {%- do values.append(raw ~ ' is null') -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(challenge_fairness.row_hash(values)) }}
{%- endmacro %}
