{#
    Misspelt vars: a var given on the command line (`--vars`) that the package does not
    declare but whose name is within a small edit distance of one it does
    (`min_attempt`, `fairness_gate_severty`) would be ignored without a word. Returns one
    problem per such var naming both ("unknown var min_attempt: did you mean
    min_attempts?"); a name close to none is left alone (it may be the project's own var).
#}
{% macro _close_unknown_var_problems(spec) -%}
    {%- set given = invocation_args_dict.get('vars') or {} -%}
    {%- if given is string -%}
        {%- set given = fromyaml(given) or {} -%}
    {%- endif -%}
    {%- set problems = [] -%}
    {%- for name in given if name is string and name not in spec and name != 'challenge_fairness' -%}
        {%- set best = namespace(name=none, distance=99) -%}
        {%- for known in spec -%}
            {%- if (known | length - name | length) | abs <= 2 -%}
                {%- set distance = challenge_fairness._edit_distance(name | lower, known) -%}
                {%- if distance < best.distance -%}
                    {%- set best.name, best.distance = known, distance -%}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if best.name is not none and best.distance <= [2, (best.name | length) // 4] | min -%}
            {%- do problems.append("unknown var " ~ name ~ ": did you mean " ~ best.name
                ~ "? (a misspelt var would be ignored)") -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(problems) }}
{%- endmacro %}


{# Levenshtein distance between two short texts (names). #}
{% macro _edit_distance(left, right) -%}
    {%- set state = namespace(previous=range(right | length + 1) | list) -%}
    {%- for a in left -%}
        {%- set current = [loop.index] -%}
        {%- for b in right -%}
            {%- do current.append([state.previous[loop.index] + 1, current[loop.index0] + 1,
                state.previous[loop.index0] + (0 if a == b else 1)] | min) -%}
        {%- endfor -%}
        {%- set state.previous = current -%}
    {%- endfor -%}
    {{ return(state.previous[-1]) }}
{%- endmacro %}
