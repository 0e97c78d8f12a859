{#
    Signature positions per LSH band: var `minhash_permutations` / var `minhash_bands`,
    which must divide evenly (a compile error says so otherwise).
#}
{% macro lsh_rows_per_band() -%}
    {%- set permutations = challenge_fairness.validated_var('minhash_permutations') | int -%}
    {%- set bands = var('minhash_bands') | int -%}
    {%- if permutations < 1 or bands < 1 or permutations % bands != 0 -%}
        {{ exceptions.raise_compiler_error(
            "minhash_bands (" ~ bands ~ ") must be >= 1 and divide minhash_permutations ("
            ~ permutations ~ ")") }}
    {%- endif -%}
    {{ return(permutations // bands) }}
{%- endmacro %}
