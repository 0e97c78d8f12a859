{#
    Named columns of a row as one JSON text, e.g. to keep a rejected raw row verbatim.
    `columns` is a list of column names, or a mapping {json key: column name}.
#}
{% macro record_to_json(columns, relation_alias) -%}
    {%- set pairs = columns.items() if columns is mapping else zip(columns, columns) -%}
    {{ return(adapter.dispatch('record_to_json', 'challenge_fairness')(pairs | list, relation_alias)) }}
{%- endmacro %}

{#- Spark: NULL fields kept, timestamps written as DuckDB writes them (to the microsecond
    without trailing zeros, no fraction on a whole second), and so are the non-finite
    numbers (bare NaN, Infinity, -Infinity, where Spark writes them as text). #}
{% macro default__record_to_json(pairs, relation_alias) -%}
    {%- set json_text -%}
    to_json(
        named_struct(
            {%- for key, column in pairs %}
            '{{ key }}', {{ relation_alias }}.{{ column }}{{ "," if not loop.last }}
            {%- endfor %}
        ),
        map('ignoreNullFields', 'false',
            'timestampFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS',
            'timestampNTZFormat', 'yyyy-MM-dd HH:mm:ss.SSSSSS')
    )
    {%- endset -%}
    {#- a fraction of a second without its trailing zeros, then no empty fraction #}
    {%- set without_trailing_zeros -%}
        regexp_replace({{ json_text }},
            '(":"\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d*?)0+"', '$1"')
    {%- endset -%}
    {%- set without_empty_fraction -%}
        regexp_replace({{ without_trailing_zeros }},
            '(":"\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d)\\."', '$1"')
    {%- endset -%}
    regexp_replace({{ without_empty_fraction }}, '":"(NaN|-?Infinity)"', '":$1')
{%- endmacro %}

{% macro duckdb__record_to_json(pairs, relation_alias) -%}
    cast(to_json(struct_pack(
        {%- for key, column in pairs %}
        "{{ key }}" := {{ relation_alias }}.{{ column }}{{ "," if not loop.last }}
        {%- endfor %}
    )) as varchar)
{%- endmacro %}
