{#
    True for a public mart of this package: a model under models/marts/, or an fct_/rpt_
    model under models/reporting/. These are what BI tools read: the parquet export and
    the database comments cover exactly them.
#}
{% macro is_public_mart(node) -%}
    {%- set model_path = node.original_file_path.replace('\\', '/') -%}
    {{ return(node.resource_type == 'model'
        and node.package_name == 'challenge_fairness'
        and (model_path.startswith('models/marts/')
            or (model_path.startswith('models/reporting/')
                and node.name.startswith(('fct_', 'rpt_'))))) }}
{%- endmacro %}
