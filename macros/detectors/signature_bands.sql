{#
    Locality-sensitive hashing of a MinHash signature: one hash per band of
    `rows_per_band` consecutive positions (`bands` bands). Two sets with Jaccard J share
    at least one band hash with probability 1 - (1 - J^rows_per_band)^bands.
#}
{% macro signature_bands(signature, bands, rows_per_band) -%}
    {{ return(adapter.dispatch('signature_bands', 'challenge_fairness')(
        signature, bands | int, rows_per_band | int)) }}
{%- endmacro %}

{% macro duckdb__signature_bands(signature, bands, rows_per_band) -%}
    list_transform(
        range({{ bands }}),
        lambda band: hash({{ signature }}[band * {{ rows_per_band }} + 1:(band + 1) * {{ rows_per_band }}])
    )
{%- endmacro %}

{% macro default__signature_bands(signature, bands, rows_per_band) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("signature_bands: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
