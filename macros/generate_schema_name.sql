{#
    Standalone, the layers land in schemas `staging`, `intermediate` and `main` of the
    DuckDB file (marts in the target schema, where BI tools look first). Installed as a
    package, the consuming project's own generate_schema_name wins.
#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
