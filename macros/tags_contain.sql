{# True when the list column `tags` holds the text `tag` (a SQL expression). #}
{% macro tags_contain(tags, tag) -%}
    {{ return(adapter.dispatch('tags_contain', 'challenge_fairness')(tags, tag)) }}
{%- endmacro %}

{% macro default__tags_contain(tags, tag) -%}
    {{ tag }} = any({{ tags }})
{%- endmacro %}

{% macro duckdb__tags_contain(tags, tag) -%}
    coalesce(list_contains({{ tags }}, {{ tag }}), false)
{%- endmacro %}
