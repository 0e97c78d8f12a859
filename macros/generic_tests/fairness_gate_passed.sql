{#
    The fairness gate as a dbt test on fct_fairness_gate_findings: one failing row per
    finding of the kinds `finding_kinds`, so the failure count N counts findings, and
    the rows are stored (store_failures) for CI to read.

    `fixed_severity`: none follows var `fairness_gate_severity` ('error' fails the build,
    'warn' records and goes on): used for fairness findings. The gate's other test passes
    'error' for suite errors and unusable input, which are never fairness warnings.

    What CI reads: one root cause is one entry. Fairness findings are printed by root cause
    (cause_id, in finding_number order): a line naming the cause, its decisive action and
    how many findings of which suites it has, then its first finding in full (suite,
    subject, family, value, threshold). Suite errors and unusable input, which have no
    cause, are printed one line each. Under `dbt --quiet` (which hides info logs) the lines
    are print()ed; otherwise logged. Every finding's line, printed or not, goes to dbt's
    log file and opens the compiled SQL as a comment, which run_results.json keeps
    (`compiled_code`). Values from the data are escaped (`terminal_safe`): a control
    character in an id cannot forge a line.
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
{%- set commented = [] -%}
{%- if execute and invocation_args_dict.get('which') in ['build', 'test', 'retry'] -%}
    {%- set found = run_query(
        "select finding_kind, check_name, message, cause_id, cause, recommended_action from "
        ~ model ~ " where " ~ condition ~ " order by finding_number") -%}
    {%- set prefix = "FAIRNESS GATE (" ~ configured ~ ")" -%}
    {%- set labels = {
        'fairness_finding': 'FAILED' if configured == 'error' else 'WARNING',
        'suite_error': 'SUITE ERROR',
        'unusable_input': 'UNUSABLE INPUT',
    } -%}
    {#- The causes in order, each with its findings' lines and suites. -#}
    {%- set causes = [] -%}
    {%- for row in found.rows -%}
        {%- set line = prefix ~ " " ~ labels.get(row[0], row[0] | upper) ~ " "
            ~ loop.index ~ "/" ~ (found.rows | length) ~ " ["
            ~ challenge_fairness.terminal_safe(row[1]) ~ "] "
            ~ challenge_fairness.terminal_safe(row[2] | replace('\n', ' | ')) -%}
        {%- do lines.append(line) -%}
        {%- if row[3] is none or not causes or causes[-1]['id'] != row[3] -%}
            {%- do causes.append({'id': row[3], 'cause': row[4], 'action': row[5],
                                  'lines': [], 'suites': {}}) -%}
        {%- endif -%}
        {%- do causes[-1]['lines'].append(line) -%}
        {%- do causes[-1]['suites'].update(
            {row[1]: causes[-1]['suites'].get(row[1], 0) + 1}) -%}
    {%- endfor -%}
    {%- set caused = causes | selectattr('id') | list -%}
    {%- set printed = [] -%}
    {%- set logged_only = [] -%}
    {%- set headers = [] -%}
    {%- if lines -%}
        {%- set of_causes = (" from " ~ (caused | length) ~ " root cause(s)") if caused else "" -%}
        {%- if 'fairness_finding' in finding_kinds and configured == 'warn' -%}
            {%- do printed.append("FAIRNESS GATE (warn): " ~ (lines | length)
                ~ " fairness finding(s)" ~ of_causes
                ~ " recorded as warnings (fairness_gate_severity: warn); the build goes on") -%}
        {%- else -%}
            {%- do printed.append("FAIRNESS GATE (error): " ~ (lines | length) ~ " finding(s)"
                ~ of_causes ~ " fail the build (" ~ (finding_kinds | join(', ')) ~ ")") -%}
        {%- endif -%}
        {%- for cause in causes -%}
            {%- if cause['id'] is none -%}
                {%- do printed.extend(cause['lines']) -%}
                {%- do commented.extend(cause['lines']) -%}
            {%- else -%}
                {%- set counts = [] -%}
                {%- for suite in cause['suites'] | sort -%}
                    {%- do counts.append(challenge_fairness.terminal_safe(suite) ~ " "
                        ~ cause['suites'][suite]) -%}
                {%- endfor -%}
                {%- set total = cause['lines'] | length -%}
                {%- set header = prefix ~ " CAUSE " ~ ((headers | length) + 1) ~ "/"
                    ~ (caused | length)
                    ~ ((" [" ~ cause['action'] ~ "]") if cause['action'] else "") ~ " "
                    ~ challenge_fairness.terminal_safe(cause['cause']) ~ ": "
                    ~ (("1 finding of " ~ challenge_fairness.terminal_safe(cause['suites'] | first)) if total == 1
                        else (total ~ " findings of " ~ (counts | join(', ')) ~ "; the first"))
                    ~ ":" -%}
                {%- do headers.append(header) -%}
                {%- do printed.append(header) -%}
                {%- do printed.append(cause['lines'][0]) -%}
                {%- do logged_only.extend(cause['lines'][1:]) -%}
                {%- do commented.append(header) -%}
                {%- do commented.extend(cause['lines']) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if logged_only -%}
            {%- do printed.append(prefix ~ " every finding, one row each: select * from " ~ model
                ~ " where " ~ condition ~ " order by finding_number (and logs/dbt.log)") -%}
        {%- endif -%}
        {#- printed under --quiet, and logged (to the file only, as debug); else logged at info -#}
        {%- for line in printed -%}
            {%- if invocation_args_dict.get('quiet') -%}
                {%- do print(line) -%}
                {{- log(line) -}}
            {%- else -%}
                {{- log(line, info=True) -}}
            {%- endif -%}
        {%- endfor -%}
        {#- the other findings of each cause reach the log file only -#}
        {%- for line in logged_only -%}
            {{- log(line) -}}
        {%- endfor -%}
    {%- endif -%}
{%- endif %}
{%- if commented %}
/*
{% for line in commented -%}
{{ line | replace('*/', '* /') }}
{% endfor -%}
*/
{%- endif %}
select *
from {{ model }}
where {{ condition }}
{% endtest %}
