{#
    True for a public mart of this package: a model declared `access: public`
    (dbt_project.yml: models/marts/ and the reporting layer's fct_/rpt_ models). These are
    what BI tools read: the parquet export, the database comments and the exposures cover
    exactly them.
#}
{% macro is_public_mart(node) -%}
    {{ return(node.resource_type == 'model'
        and node.package_name == 'challenge_fairness'
        and node.access == 'public') }}
{%- endmacro %}
