{#
    The canonical text of a JSON object: top-level keys sorted, no insignificant white
    space, so that the same variable combination written with its keys in another order
    (or spaced differently) is the same combination. Only call it on valid JSON objects
    without duplicate keys (see json_object_problem).
#}
{% macro canonical_json_object(json_text) -%}
    {{ return(adapter.dispatch('canonical_json_object', 'challenge_fairness')(json_text)) }}
{%- endmacro %}

{% macro duckdb__canonical_json_object(json_text) -%}
    to_json(map_from_entries(list_sort(map_entries(
        cast(cast({{ json_text }} as json) as map(varchar, json))
    ))))
{%- endmacro %}

{#- Spark: a VARIANT keeps an object's keys sorted, so its JSON text is canonical. It sorts the
    keys of nested objects too, which DuckDB keeps as written (docs/spark.md). #}
{% macro spark__canonical_json_object(json_text) -%}
    to_json(parse_json({{ json_text }}))
{%- endmacro %}

{% macro default__canonical_json_object(json_text) -%}
    {{ exceptions.raise_compiler_error(
        "canonical_json_object has no implementation for adapter " ~ target.type) }}
{%- endmacro %}


{#
    Why a text is not a usable JSON object, or NULL when it is: 'malformed_variables_json',
    'variables_not_json_object' or 'duplicate_variable_keys'.
#}
{% macro json_object_problem(json_text) -%}
    {{ return(adapter.dispatch('json_object_problem', 'challenge_fairness')(json_text)) }}
{%- endmacro %}

{% macro duckdb__json_object_problem(json_text) -%}
    case
        when not json_valid({{ json_text }}) then 'malformed_variables_json'
        when json_type(cast({{ json_text }} as json)) <> 'OBJECT' then 'variables_not_json_object'
        when len(json_keys({{ json_text }})) <> len(list_distinct(json_keys({{ json_text }})))
            then 'duplicate_variable_keys'
    end
{%- endmacro %}

{#- Spark: parse_json refuses duplicate keys, which json_object_keys lists, so they are
    told apart from malformed text first. #}
{% macro spark__json_object_problem(json_text) -%}
    case
        when size(json_object_keys({{ json_text }}))
            <> size(array_distinct(json_object_keys({{ json_text }})))
            then 'duplicate_variable_keys'
        when try_parse_json({{ json_text }}) is null then 'malformed_variables_json'
        when schema_of_variant(try_parse_json({{ json_text }})) not like 'OBJECT<%'
            then 'variables_not_json_object'
    end
{%- endmacro %}

{% macro default__json_object_problem(json_text) -%}
    {{ exceptions.raise_compiler_error(
        "json_object_problem has no implementation for adapter " ~ target.type) }}
{%- endmacro %}
