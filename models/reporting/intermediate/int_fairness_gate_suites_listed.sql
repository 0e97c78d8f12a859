{#
    One row per Great Expectations suite the gate runs (macro gate_suite_names: the var
    `fairness_gate_suites` when set, else every suite declared in detector_registry()),
    with the detector that declares it and the threshold vars every declared suite may
    compare against (JSON, name -> value). int_fairness_expectations_validated reads it, so
    the gate's suite list comes from the detectors' declarations.
#}
{%- set suites = challenge_fairness.gate_suite_names() -%}
{%- set declared_by = {} -%}
{%- for detector in challenge_fairness.detector_registry() -%}
    {%- for suite in detector.get('gate_suites', []) -%}
        {%- do declared_by.update({suite: detector['name']}) -%}
    {%- endfor -%}
{%- endfor -%}
{%- set thresholds = tojson(challenge_fairness.gate_thresholds(), sort_keys=true) %}
with

suites as (
    {%- for suite in suites %}
    select
        {{ loop.index }} as suite_order,
        {{ challenge_fairness.sql_string_literal(suite) }} as suite_name,
        {{ challenge_fairness.sql_string_literal(declared_by.get(suite)) if suite in declared_by
            else 'cast(null as varchar)' }} as detector
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- else %}
    select
        cast(null as integer) as suite_order,
        cast(null as varchar) as suite_name,
        cast(null as varchar) as detector
    where false
    {%- endfor %}
)

select
    cast(suite_order as integer) as suite_order,
    cast(suite_name as varchar) as suite_name,
    cast(detector as varchar) as detector,
    cast({{ challenge_fairness.sql_string_literal(thresholds) }} as varchar) as thresholds
from suites
