{#
    The checksum of a raw row of an append-only table (attempts, test_results,
    rubric_scores) under alias `relation_alias`: the hash of its row number and of each
    value as staging types it (macro raw_typed, which the models' `typed` CTEs select too,
    so DuckDB computes each once), with whether the raw value is NULL where a typed NULL can
    also come from a value that does not parse. An incremental run compares it with the
    stored one (macro revalidated_rows) to see that a row folded before is still in the raw
    table as it was validated.

    Typed values, not raw ones: the type a reader gives a raw column can change while no
    value does. A lake's new day may hold `score` as DOUBLE where the files before held
    BIGINT (pandas writes a column with a missing value as float64), or `submitted_at` with
    a UTC zone where the files before had none; read as one table, every file then takes the
    wider type, and the hash of a raw 85 (BIGINT) is not the hash of a raw 85.0 (DOUBLE). A
    change the typed values do not see (a text score '85.50' rewritten as '85.5') is not a
    change of the row for the build either.
#}
{% macro raw_row_checksum(table_name, relation_alias) -%}
    {%- set values = [relation_alias ~ '.source_row_number'] -%}
    {%- for column, kind in challenge_fairness._raw_typed_kinds(table_name) -%}
        {%- do values.append(challenge_fairness.raw_typed(table_name, column, relation_alias)) -%}
        {#- a typed NULL is also a value that does not parse: whether the raw one is NULL -#}
        {%- if kind not in ['text', 'label'] -%}
            {%- do values.append(relation_alias ~ '.' ~ column ~ ' is null') -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(challenge_fairness.row_hash(values)) }}
{%- endmacro %}
