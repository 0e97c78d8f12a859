{#
    var(name), after checking it against `var_spec()`. For vars that models use in Jinja
    while dbt parses the project (comparisons, ranges, arithmetic): the hook on-run-start
    is rendered after the models, so without this a bad value would fail there first, with
    a Python error or a message about one var only.

    Only this var (and the var its cross rule names) is checked here, which is cheap; when
    either is bad, validate_vars() stops the run with the message about every bad var, as
    the hook would. Checking every var on each call cost about 1 s of every parse.
#}
{% macro validated_var(name) -%}
    {%- set spec = challenge_fairness.var_spec() -%}
    {%- set rule = spec.get(name) -%}
    {%- if rule is none -%}
        {{ exceptions.raise_compiler_error("validated_var: '" ~ name ~ "' is not in var_spec()") }}
    {%- endif -%}
    {%- set checked = [name] -%}
    {%- for other in (rule.get('after'), rule.get('divides')) if other -%}
        {%- do checked.append(other) -%}
    {%- endfor -%}
    {%- set bad = [] -%}
    {%- for checked_name in checked -%}
        {%- set checked_rule = spec[checked_name] -%}
        {%- if challenge_fairness._var_problem(
                checked_name, var(checked_name, checked_rule.get('default')), checked_rule) -%}
            {%- do bad.append(checked_name) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if bad or challenge_fairness._var_cross_problem(name, rule, spec) -%}
        {%- do challenge_fairness.validate_vars() -%}
    {%- endif -%}
    {{ return(var(name)) }}
{%- endmacro %}
