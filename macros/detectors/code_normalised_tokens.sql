{#
    Tokens normalised so that renaming and reformatting do not hide a copy: comments
    dropped, identifiers -> 'ID' (keywords of the common languages kept as written),
    string and number literals -> 'LIT', punctuation and operators kept.
#}
{% macro code_normalised_tokens(tokens) -%}
    {{ return(adapter.dispatch('code_normalised_tokens', 'challenge_fairness')(tokens)) }}
{%- endmacro %}

{# Keywords of Python, JavaScript/TypeScript, Java, C/C++, C#, Go, Rust, kept by the normalisation. #}
{% macro _code_keywords() -%}
    {{ return([
        'False', 'None', 'True', 'abstract', 'and', 'as', 'assert', 'async', 'await', 'bool',
        'boolean', 'break', 'byte', 'case', 'catch', 'char', 'class', 'const', 'continue',
        'def', 'default', 'defer', 'del', 'delete', 'do', 'double', 'elif', 'else', 'enum',
        'except', 'export', 'extends', 'false', 'final', 'finally', 'float', 'fn', 'for',
        'from', 'func', 'function', 'global', 'go', 'goto', 'if', 'impl', 'implements',
        'import', 'in', 'instanceof', 'int', 'interface', 'is', 'lambda', 'let', 'long',
        'loop', 'map', 'match', 'mod', 'mut', 'namespace', 'new', 'nil', 'nonlocal', 'not',
        'null', 'or', 'package', 'pass', 'private', 'protected', 'pub', 'public', 'raise',
        'range', 'return', 'self', 'short', 'static', 'str', 'string', 'struct', 'super',
        'switch', 'this', 'throw', 'throws', 'trait', 'true', 'try', 'type', 'typeof',
        'undefined', 'unsigned', 'use', 'using', 'var', 'void', 'while', 'with', 'yield',
    ]) }}
{%- endmacro %}

{% macro duckdb__code_normalised_tokens(tokens) -%}
    list_transform(
        list_filter({{ tokens }}, lambda token: not (
            starts_with(token, '#') or starts_with(token, '//') or starts_with(token, '/*')
        )),
        lambda token: case
            {#- first character: quote or backtick (string), digit (number), letter, _ or $ #}
            when ascii(token) in (34, 39, 96) or ascii(token) between 48 and 57 then 'LIT'
            when ascii(token) between 65 and 90 or ascii(token) between 97 and 122
                or ascii(token) in (36, 95)
                then case
                    when list_contains({{ _code_keywords() | tojson | replace('"', "'") }}, token)
                        then token
                    else 'ID'
                end
            else token
        end
    )
{%- endmacro %}

{% macro default__code_normalised_tokens(tokens) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("code_normalised_tokens: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
