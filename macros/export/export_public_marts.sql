{#
    Parquet hand-off for BI: writes every public mart (is_public_mart) to
    `<parquet_export_dir>/<mart>.parquet`, creating the folder. Does
    nothing while the var `parquet_export_dir` is null (the default).
    - As the project's on-run-end hook it receives `results` and exports only the marts
      this run built successfully (a failed or skipped mart is not exported).
    - As `dbt run-operation export_public_marts` (no results) it exports every public mart
      that exists in the database.
#}
{% macro export_public_marts(results=none) -%}
    {%- set export_dir = var('parquet_export_dir', none) -%}
    {%- if not execute or not export_dir -%}{{ return('') }}{%- endif -%}
    {%- set export_dir = export_dir | string -%}
    {%- set built = [] -%}
    {%- for result in (results or []) -%}
        {%- if result.node.resource_type == 'model' and result.status == 'success' -%}
            {%- do built.append(result.node.unique_id) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set exported = [] -%}
    {%- for node in graph.nodes.values() | sort(attribute='name') -%}
        {%- if challenge_fairness.is_public_mart(node)
            and (results is none or node.unique_id in built) -%}
            {%- set relation = adapter.get_relation(
                database=node.database, schema=node.schema, identifier=node.alias) -%}
            {%- if relation is not none -%}
                {%- if exported | length == 0 -%}
                    {%- do challenge_fairness.create_directory(export_dir) -%}
                {%- endif -%}
                {%- set path = export_dir.rstrip('/') ~ '/' ~ node.alias ~ '.parquet' -%}
                {%- do challenge_fairness.export_relation_to_parquet(relation, path) -%}
                {%- do exported.append(node.alias) -%}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do log('export_public_marts: wrote ' ~ exported | length ~ ' public marts to '
        ~ export_dir ~ ' (' ~ exported | join(', ') ~ ')', info=true) -%}
    {{ return('') }}
{%- endmacro %}
