{#
    The list of tags in `tags` (an expression of the raw challenges' tags column), whose
    raw type is `column_type` (macro source_column_type; none at parse time): a list is
    kept as a list of text; text is parsed per row ('[a, b]' or a JSON array as a list,
    'a, b' split on commas, '' no tags). NULL when text does not parse.
#}
{% macro parsed_tags(tags, column_type) -%}
    {{ return(adapter.dispatch('parsed_tags', 'challenge_fairness')(tags, column_type)) }}
{%- endmacro %}

{% macro duckdb__parsed_tags(tags, column_type) -%}
    {%- if column_type is none or (column_type | upper).endswith('[]') -%}
        try_cast({{ tags }} as varchar[])
    {%- else -%}
        case
            when trim(cast({{ tags }} as string)) like '[%'
                then try_cast(trim(cast({{ tags }} as string)) as varchar[])
            else list_filter(
                list_transform(string_split(cast({{ tags }} as string), ','), lambda tag: trim(tag)),
                lambda tag: tag <> ''
            )
        end
    {%- endif -%}
{%- endmacro %}

{#- Spark: a bracketed text is read as a JSON array of text; DuckDB also reads unquoted
    items ('[a, b]') there, which Spark rejects as tags_not_list (docs/spark.md). #}
{% macro spark__parsed_tags(tags, column_type) -%}
    {%- if column_type is none or (column_type | lower).startswith('array') -%}
        cast({{ tags }} as array<string>)
    {%- else -%}
        case
            when trim(cast({{ tags }} as string)) like '[%'
                then from_json(trim(cast({{ tags }} as string)), 'array<string>')
            else filter(
                transform(split(cast({{ tags }} as string), ','), tag -> trim(tag)),
                tag -> tag <> ''
            )
        end
    {%- endif -%}
{%- endmacro %}
