{#
    The typed value of raw column `column_name` of the append-only table `table_name`
    (attempts, test_results, rubric_scores) under alias `relation_alias`: the one
    expression by which staging types it. The models' `typed` CTEs select it, and the
    rows' checksum (macro raw_row_checksum) hashes the same expressions, so the two cannot
    drift apart and DuckDB computes each value once.
    - text (ids): cast to text;
    - number (score): try_cast to DOUBLE; a value that does not parse is NULL (staging
      rejects the row);
    - number_from_text, boolean (points, passed): the same through text, so that a raw
      column a reader gives as text or as a number types alike;
    - timestamp (submitted_at): macro utc_timestamp;
    - label (approach, optional): trimmed text, blank as NULL, NULL where the column is
      absent (macro optional_column).
#}
{% macro raw_typed(table_name, column_name, relation_alias='source') -%}
    {%- set kind = dict(challenge_fairness._raw_typed_kinds(table_name)).get(column_name) -%}
    {%- set raw = relation_alias ~ '.' ~ column_name -%}
    {%- if kind == 'text' -%}
        cast({{ raw }} as string)
    {%- elif kind == 'number' -%}
        try_cast({{ raw }} as double)
    {%- elif kind == 'number_from_text' -%}
        try_cast(cast({{ raw }} as string) as double)
    {%- elif kind == 'boolean' -%}
        try_cast(cast({{ raw }} as string) as boolean)
    {%- elif kind == 'timestamp' -%}
        {{ challenge_fairness.utc_timestamp(raw, table_name, column_name) }}
    {%- elif kind == 'label' -%}
        nullif(trim({{ challenge_fairness.optional_column(table_name, column_name, 'string', relation_alias) }}), '')
    {%- else -%}
        {{ exceptions.raise_compiler_error(
            "raw_typed: no typing of column " ~ column_name ~ " of raw table " ~ table_name) }}
    {%- endif -%}
{%- endmacro %}

{#- Each typed raw column of `table_name` and its kind, [(column, kind), ...] in the order
    raw_row_checksum hashes them in. -#}
{% macro _raw_typed_kinds(table_name) -%}
    {%- set kinds = {
        'attempts': [('attempt_id', 'text'), ('challenge_id', 'text'), ('agent_id', 'text'),
                     ('score', 'number'), ('submitted_at', 'timestamp'), ('approach', 'label')],
        'test_results': [('attempt_id', 'text'), ('test_case_id', 'text'), ('passed', 'boolean')],
        'rubric_scores': [('attempt_id', 'text'), ('rubric_item_id', 'text'),
                          ('points', 'number_from_text')],
    } -%}
    {%- if table_name not in kinds -%}
        {{ exceptions.raise_compiler_error("raw_typed: no typed columns for raw table " ~ table_name) }}
    {%- endif -%}
    {{ return(kinds[table_name]) }}
{%- endmacro %}
