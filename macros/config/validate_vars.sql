{#
    Checks every var of `var_spec()` (type, range, format, cross-var rules) and stops the
    run with one message naming each bad var, its value and what it accepts. Run from
    `on-run-start` (dbt_project.yml), so it guards build, run, test, seed and snapshot
    before any node runs; renders to nothing when every var is valid.
#}
{% macro validate_vars() -%}
    {%- set spec = challenge_fairness.var_spec() -%}
    {%- set problems = [] -%}
    {%- for name, rule in spec.items() -%}
        {%- set problem = challenge_fairness._var_problem(name, var(name, rule.get('default')), rule) -%}
        {%- if problem -%}
            {%- do problems.append(problem) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do problems.extend(challenge_fairness._close_unknown_var_problems(spec)) -%}
    {%- if not problems -%}
        {%- for name, rule in spec.items() -%}
            {%- set problem = challenge_fairness._var_cross_problem(name, rule, spec) -%}
            {%- if problem -%}
                {%- do problems.append(problem) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if problems -%}
        {{ exceptions.raise_compiler_error(
            "Invalid var" ~ ("s" if problems | length > 1 else "") ~ " (see docs/configuration.md): "
            ~ problems | join("; ")) }}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}


{# The value as the user wrote it, strings quoted, so that '100' and 100 read differently. #}
{% macro _var_shown(value) -%}
    {%- if value is string -%}
        {{ return("'" ~ value ~ "' (a string)") }}
    {%- elif value is none -%}
        {{ return("null") }}
    {%- else -%}
        {{ return(value | string) }}
    {%- endif -%}
{%- endmacro %}


{# What a rule accepts, in words ("a number with 0 < alpha < 1"). #}
{% macro _var_accepts(name, rule) -%}
    {%- set kind = rule['type'] -%}
    {%- if kind in ('number', 'integer') -%}
        {%- set bounds = [] -%}
        {%- if rule.get('min') is not none -%}
            {%- do bounds.append((rule['min'] | string) ~ (" < " if rule.get('min_exclusive') else " <= ")) -%}
        {%- endif -%}
        {%- do bounds.append(name) -%}
        {%- if rule.get('max') is not none -%}
            {%- do bounds.append((" < " if rule.get('max_exclusive') else " <= ") ~ (rule['max'] | string)) -%}
        {%- endif -%}
        {%- set words = "a finite number" if kind == 'number' else "an integer" -%}
        {%- set accepts = words ~ " (not a string) with " ~ bounds | join('') -%}
    {%- elif kind == 'boolean' -%}
        {%- set accepts = "true or false" -%}
    {%- elif kind == 'choice' -%}
        {%- set quoted = [] -%}
        {%- for value in rule['values'] -%}{%- do quoted.append("'" ~ value ~ "'") -%}{%- endfor -%}
        {%- set accepts = quoted[:-1] | join(', ') ~ " or " ~ quoted[-1] -%}
    {%- elif kind == 'date' -%}
        {%- set accepts = "a date 'YYYY-MM-DD'" -%}
    {%- elif kind == 'identifier' -%}
        {%- set accepts = "a name of letters, digits and underscores, not starting with a digit" -%}
    {%- elif kind == 'identifiers' -%}
        {%- set accepts = "a list of names of letters, digits and underscores" -%}
    {%- elif kind == 'texts' -%}
        {%- set accepts = "a list of non-empty texts of at most 200 characters without control characters" -%}
    {%- elif kind == 'text' -%}
        {%- set accepts = "a non-empty text of at most 200 characters without control characters" -%}
    {%- elif kind == 'path' -%}
        {%- set accepts = "a non-empty folder path without control characters" -%}
    {%- else -%}
        {{ exceptions.raise_compiler_error("var_spec: unknown type '" ~ kind ~ "' of var " ~ name) }}
    {%- endif -%}
    {{ return(accepts ~ (" or null" if rule.get('nullable') else "")) }}
{%- endmacro %}


{# True when `value` is a string of the kind `kind` ('identifier', 'text', 'path', 'date'). #}
{% macro _var_string_ok(value, kind) -%}
    {%- if value is not string -%}{{ return(false) }}{%- endif -%}
    {%- set re = modules.re -%}
    {%- if kind == 'identifier' -%}
        {{ return(re.fullmatch('[A-Za-z_][A-Za-z0-9_]{0,62}', value) is not none) }}
    {%- endif -%}
    {%- if re.search('[\\x00-\\x1f\\x7f]', value) is not none or value | trim == '' -%}
        {{ return(false) }}
    {%- endif -%}
    {%- if kind == 'text' -%}
        {{ return(value | length <= 200) }}
    {%- elif kind == 'date' -%}
        {%- if re.fullmatch('[0-9]{4}-[0-9]{2}-[0-9]{2}', value) is none -%}{{ return(false) }}{%- endif -%}
        {%- set year, month, day = value[0:4] | int, value[5:7] | int, value[8:10] | int -%}
        {%- set leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 -%}
        {%- set month_days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] -%}
        {{ return(year >= 1 and 1 <= month <= 12 and 1 <= day <= month_days[month - 1]) }}
    {%- endif -%}
    {{ return(true) }}
{%- endmacro %}


{# '' when `value` satisfies `rule`, else "<name> must be <accepts>, got <value>". #}
{% macro _var_problem(name, value, rule) -%}
    {%- set kind = rule['type'] -%}
    {%- if value is none -%}
        {%- set ok = rule.get('nullable', false) -%}
    {%- elif kind in ('number', 'integer') -%}
        {%- set ok = value is number and value is not boolean
            and (kind == 'number' or value is integer)
            and value == value and value | abs < 1e300 -%}
        {%- if ok and rule.get('min') is not none -%}
            {%- set ok = value > rule['min'] if rule.get('min_exclusive') else value >= rule['min'] -%}
        {%- endif -%}
        {%- if ok and rule.get('max') is not none -%}
            {%- set ok = value < rule['max'] if rule.get('max_exclusive') else value <= rule['max'] -%}
        {%- endif -%}
    {%- elif kind == 'boolean' -%}
        {%- set ok = value is boolean -%}
    {%- elif kind == 'choice' -%}
        {%- set ok = value is string and value in rule['values'] -%}
    {%- elif kind == 'date' -%}
        {#- YAML reads an unquoted 2026-01-01 as a date: its ISO text is checked. -#}
        {%- set text = value.isoformat() if value is not string and value.isoformat is defined else value -%}
        {%- set ok = challenge_fairness._var_string_ok(text, 'date') -%}
    {%- elif kind in ('identifiers', 'texts') -%}
        {%- set state = namespace(ok=value is iterable and value is not string and value is not mapping) -%}
        {%- if state.ok -%}
            {%- for item in value -%}
                {%- if not challenge_fairness._var_string_ok(item, 'identifier' if kind == 'identifiers' else 'text') -%}
                    {%- set state.ok = false -%}
                {%- endif -%}
            {%- endfor -%}
        {%- endif -%}
        {%- set ok = state.ok -%}
    {%- else -%}
        {%- set ok = challenge_fairness._var_string_ok(value, kind) -%}
    {%- endif -%}
    {%- if ok -%}
        {{ return('') }}
    {%- endif -%}
    {{ return(name ~ " must be " ~ challenge_fairness._var_accepts(name, rule)
        ~ ", got " ~ challenge_fairness._var_shown(value)) }}
{%- endmacro %}


{# Rules between vars (checked once every var is valid on its own). #}
{% macro _var_cross_problem(name, rule, spec) -%}
    {%- set value = var(name, rule.get('default')) -%}
    {%- if rule.get('after') -%}
        {%- set other = var(rule['after'], spec[rule['after']].get('default')) -%}
        {%- if value < other -%}
            {{ return(name ~ " must be >= " ~ rule['after'] ~ " (" ~ other ~ "), got " ~ value) }}
        {%- endif -%}
    {%- endif -%}
    {%- if rule.get('divides') -%}
        {%- set other = var(rule['divides'], spec[rule['divides']].get('default')) -%}
        {%- if other % value != 0 -%}
            {{ return(name ~ " must divide " ~ rule['divides'] ~ " (" ~ other ~ "), got " ~ value) }}
        {%- endif -%}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}
