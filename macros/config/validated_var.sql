{#
    var(name), after every var has been checked against `var_spec()` (validate_vars). For
    vars that models use in Jinja while dbt parses the project (comparisons, ranges,
    arithmetic): the hook on-run-start is rendered after the models, so without this a bad
    value would fail there first, with a Python error or a message about one var only.
#}
{% macro validated_var(name) -%}
    {%- do challenge_fairness.validate_vars() -%}
    {{ return(var(name)) }}
{%- endmacro %}
