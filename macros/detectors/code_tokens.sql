{#
    Tokens of source code text, in order (a varchar list): block comments (/* */), line
    comments (// and #), string literals (triple-quoted, single-line quoted, backtick
    templates), numbers, identifiers and keywords, and every other non-space character on
    its own. White space separates tokens and is otherwise dropped, so re-indented or
    re-wrapped code gives the same tokens. Language-agnostic on purpose: it is a lexer for
    "code-like text" (C family, Python, JavaScript, Go, Rust, shell), not a parser.
#}
{% macro code_tokens(content) -%}
    {{ return(adapter.dispatch('code_tokens', 'challenge_fairness')(content)) }}
{%- endmacro %}

{% macro _code_token_pattern() -%}
    {%- set alternatives = [
        '/\\*[\\s\\S]*?\\*/',
        '//[^\\n]*',
        '#[^\\n]*',
        '"""[\\s\\S]*?"""',
        "'''[\\s\\S]*?'''",
        '"(?:[^"\\\\\\n]|\\\\.)*"',
        "'(?:[^'\\\\\\n]|\\\\.)*'",
        '`(?:[^`\\\\]|\\\\.)*`',
        '\\d[\\w.]*',
        '[A-Za-z_$][\\w$]*',
        '\\S',
    ] -%}
    {{ return(alternatives | join('|')) }}
{%- endmacro %}

{% macro duckdb__code_tokens(content) -%}
    regexp_extract_all({{ content }}, '{{ _code_token_pattern() | replace("'", "''") }}')
{%- endmacro %}

{% macro default__code_tokens(content) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("code_tokens: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
