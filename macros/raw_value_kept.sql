{#
    The raw value of a column of a row clean by its own table's rules, kept only when its
    typed value does not give it back: `typed` cast to the raw column's type (macro
    source_column_type) equals `raw` for almost every row (always, when the raw column
    has the contract type), and then NULL is stored. A check after
    staging that rejects the row (int_keyed__rows_rejected) writes its rejection record
    from `coalesce(kept, typed cast to the raw type)` (macro raw_value_rebuilt), which
    is the raw value either way. `data_type` is the typed column's type.
    Kept as text, whatever the raw type: the type a reader gives a raw column may widen
    when a later file holds it wider (BIGINT to DOUBLE, TIMESTAMP to TIMESTAMPTZ), and the
    stored column of an incremental model must keep its type.
#}
{% macro raw_value_kept(raw, typed, table_name, column_name, data_type) -%}
    {%- set raw_type = challenge_fairness._raw_column_type(table_name, column_name) -%}
    {%- if raw_type is none or (raw_type | lower) == (data_type | lower) -%}
        cast(null as string)
    {%- else -%}
        case
            when cast({{ typed }} as {{ raw_type }}) is not distinct from {{ raw }} then null
            else cast({{ raw }} as string)
        end
    {%- endif -%}
{%- endmacro %}

{# The raw value of such a column: the kept one, else the typed one, cast to its raw type. #}
{% macro raw_value_rebuilt(kept, typed, table_name, column_name, data_type) -%}
    {%- set raw_type = challenge_fairness._raw_column_type(table_name, column_name) -%}
    {%- if raw_type is none or (raw_type | lower) == (data_type | lower) -%}
        {{ typed }}
    {%- else -%}
        coalesce(cast({{ kept }} as {{ raw_type }}), cast({{ typed }} as {{ raw_type }}))
    {%- endif -%}
{%- endmacro %}

{#- The raw column's type; none when the optional table or column is absent (a typed NULL
    is read then, of the typed column's type). #}
{% macro _raw_column_type(table_name, column_name) -%}
    {%- if not challenge_fairness.source_table_exists(table_name)
        or (column_name | lower) not in challenge_fairness.source_column_names(table_name) -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(challenge_fairness.source_column_type(table_name, column_name)) }}
{%- endmacro %}
