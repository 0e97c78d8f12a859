{#
    Named columns of a row as one JSON text, e.g. to keep a rejected raw row verbatim.
    `columns` is a list of column names, or a mapping {json key: column name}.
#}
{% macro record_to_json(columns, relation_alias) -%}
    {%- set pairs = columns.items() if columns is mapping else zip(columns, columns) -%}
    {{ return(adapter.dispatch('record_to_json', 'challenge_fairness')(pairs | list, relation_alias)) }}
{%- endmacro %}

{% macro default__record_to_json(pairs, relation_alias) -%}
    to_json(named_struct(
        {%- for key, column in pairs %}
        '{{ key }}', {{ relation_alias }}.{{ column }}{{ "," if not loop.last }}
        {%- endfor %}
    ))
{%- endmacro %}

{% macro duckdb__record_to_json(pairs, relation_alias) -%}
    cast(to_json(struct_pack(
        {%- for key, column in pairs %}
        "{{ key }}" := {{ relation_alias }}.{{ column }}{{ "," if not loop.last }}
        {%- endfor %}
    )) as varchar)
{%- endmacro %}
