{#
    Tokens as written, white space folded: every run of white space inside a comment or a
    string literal becomes one space, and a comment's trailing white space is dropped
    (other tokens contain none).
#}
{% macro code_raw_tokens(tokens) -%}
    {{ return(adapter.dispatch('code_raw_tokens', 'challenge_fairness')(tokens)) }}
{%- endmacro %}

{% macro duckdb__code_raw_tokens(tokens) -%}
    list_transform({{ tokens }}, lambda token: case
        {#- quotes, backtick, '#' and '/': the only tokens that can hold white space #}
        when ascii(token) in (34, 39, 96, 35, 47) then trim(regexp_replace(token, '[\t\n\v\f\r ]+', ' ', 'g'))
        else token
    end)
{%- endmacro %}

{% macro default__code_raw_tokens(tokens) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("code_raw_tokens: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
