{#
    The fairness gate: fails (severity from var `fairness_gate_severity`, 'error' or
    'warn') when any expectation in the gate results failed, and prints each failure's
    message, naming the challenge or combination, the family, the value and the threshold.
#}
{% test fairness_gate_passed(model, success_column='success', message_column='failure_message') %}
{%- set severity = var('fairness_gate_severity', 'error') | string | lower -%}
{%- if severity not in ['error', 'warn'] -%}
    {{ exceptions.raise_compiler_error(
        "var fairness_gate_severity must be 'error' or 'warn', got '" ~ severity ~ "'") }}
{%- endif -%}
{{ config(severity=severity) }}
{%- if execute and invocation_args_dict.get('which') in ['build', 'test', 'retry'] -%}
    {%- set failures = run_query(
        "select " ~ message_column ~ " from " ~ model ~ " where not " ~ success_column
    ) -%}
    {%- for failure in failures -%}
        {{ log("FAIRNESS GATE (" ~ severity ~ "): " ~ failure[0], info=True) }}
    {%- endfor -%}
{%- endif %}
select *
from {{ model }}
where not {{ success_column }}
{% endtest %}
