{#
    The fairness gate as a dbt test on fct_fairness_gate_findings: one failing row per
    finding of the kinds `finding_kinds`, so the failure count N counts findings, and
    the rows are stored (store_failures) for CI to read.

    `fixed_severity`: none follows var `fairness_gate_severity` ('error' fails the build,
    'warn' records and goes on): used for fairness findings. The gate's other test passes
    'error' for suite errors and unusable input, which are never fairness warnings.

    Every finding is printed as one line naming the suite (or input rule), the subject
    (challenge, combination, ...), the family, the value and the threshold. Under
    `dbt --quiet` (which hides info logs) the lines are print()ed; otherwise logged, so
    they also reach dbt's log file. The same lines open the compiled SQL as a comment,
    which run_results.json keeps (`compiled_code`). Values from the data are escaped
    (`terminal_safe`): a control character in an id cannot forge a line.
#}
{% test fairness_gate_passed(model, finding_kinds=['fairness_finding'], fixed_severity=none) %}
{%- set configured = (fixed_severity if fixed_severity is not none else var('fairness_gate_severity', 'error')) | string | lower -%}
{%- if configured not in ['error', 'warn'] -%}
    {{ exceptions.raise_compiler_error(
        "var fairness_gate_severity must be 'error' or 'warn', got '" ~ configured ~ "'") }}
{%- endif -%}
{{ config(severity=configured, store_failures=true) }}
{%- set kinds = [] -%}
{%- for kind in finding_kinds -%}
    {%- do kinds.append("'" ~ (kind | replace("'", "''")) ~ "'") -%}
{%- endfor -%}
{%- set condition = "finding_kind in (" ~ (kinds | join(', ')) ~ ")" -%}
{%- set lines = [] -%}
{%- if execute and invocation_args_dict.get('which') in ['build', 'test', 'retry'] -%}
    {%- set found = run_query(
        "select finding_kind, check_name, message from " ~ model ~ " where " ~ condition
        ~ " order by finding_number") -%}
    {%- set labels = {
        'fairness_finding': 'FAILED' if configured == 'error' else 'WARNING',
        'suite_error': 'SUITE ERROR',
        'unusable_input': 'UNUSABLE INPUT',
    } -%}
    {%- for row in found.rows -%}
        {%- do lines.append(
            "FAIRNESS GATE (" ~ configured ~ ") " ~ labels.get(row[0], row[0] | upper) ~ " "
            ~ loop.index ~ "/" ~ (found.rows | length) ~ " ["
            ~ challenge_fairness.terminal_safe(row[1]) ~ "] "
            ~ challenge_fairness.terminal_safe(row[2] | replace('\n', ' | '))) -%}
    {%- endfor -%}
    {%- if lines -%}
        {%- if 'fairness_finding' in finding_kinds and configured == 'warn' -%}
            {%- set summary = "FAIRNESS GATE (warn): " ~ (lines | length)
                ~ " fairness finding(s) recorded as warnings (fairness_gate_severity: warn); the build goes on" -%}
        {%- else -%}
            {%- set summary = "FAIRNESS GATE (error): " ~ (lines | length)
                ~ " finding(s) fail the build (" ~ (finding_kinds | join(', ')) ~ ")" -%}
        {%- endif -%}
        {%- for line in [summary] + lines -%}
            {%- if invocation_args_dict.get('quiet') -%}
                {%- do print(line) -%}
            {%- else -%}
                {{- log(line, info=True) -}}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
{%- endif %}
{%- if lines %}
/*
{% for line in lines -%}
{{ line | replace('*/', '* /') }}
{% endfor -%}
*/
{%- endif %}
select *
from {{ model }}
where {{ condition }}
{% endtest %}
