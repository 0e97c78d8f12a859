{#
    Signature positions per LSH band: var `minhash_permutations` / the var named by
    `bands_var` (`minhash_bands` for the Jaccard bands, `contamination_containment_bands`
    for the containment bands), which must divide evenly (a compile error says so
    otherwise).
#}
{% macro lsh_rows_per_band(bands_var='minhash_bands') -%}
    {%- set permutations = challenge_fairness.validated_var('minhash_permutations') | int -%}
    {%- set bands = challenge_fairness.validated_var(bands_var) | int -%}
    {%- if permutations < 1 or bands < 1 or permutations % bands != 0 -%}
        {{ exceptions.raise_compiler_error(
            bands_var ~ " (" ~ bands ~ ") must be >= 1 and divide minhash_permutations ("
            ~ permutations ~ ")") }}
    {%- endif -%}
    {{ return(permutations // bands) }}
{%- endmacro %}
