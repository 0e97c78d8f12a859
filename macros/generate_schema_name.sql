{#
    Standalone, the layers land in schemas `staging`, `intermediate` and `main` of the
    DuckDB file (marts in the target schema, where BI tools look first). On a warehouse
    (Spark) a schema is shared by every project, so there the layers are prefixed with the
    target schema (`<schema>_staging`), as dbt does by default. Installed as a package, the
    consuming project's own generate_schema_name wins.
#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- elif target.type != 'duckdb' -%}
        {{ target.schema }}_{{ custom_schema_name | trim }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
