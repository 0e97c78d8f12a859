{#
    The distinct 64-bit hashes of a token list's shingles: every run of `shingle_tokens`
    consecutive tokens (a list with fewer tokens has none). Sets, not bags: Jaccard
    similarity is defined on them.
#}
{% macro shingle_hashes(tokens, shingle_tokens) -%}
    {%- if shingle_tokens | int < 1 -%}
        {{ exceptions.raise_compiler_error("shingle_hashes: shingle_tokens must be >= 1, got " ~ shingle_tokens) }}
    {%- endif -%}
    {{ return(adapter.dispatch('shingle_hashes', 'challenge_fairness')(tokens, shingle_tokens | int)) }}
{%- endmacro %}

{% macro duckdb__shingle_hashes(tokens, shingle_tokens) -%}
    {#- the k shifted copies of the list, zipped and truncated to the shortest: one struct per shingle #}
    list_distinct(list_transform(
        list_zip(
            {%- for offset in range(1, shingle_tokens + 1) %}
            {{ tokens }}[{{ offset }}:],
            {%- endfor %}
            true
        ),
        lambda shingle: hash(shingle)
    ))
{%- endmacro %}

{% macro default__shingle_hashes(tokens, shingle_tokens) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("shingle_hashes: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
