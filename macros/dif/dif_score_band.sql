{#
    The DIF score band of `score` (SQL): band b of B = var `dif_score_bands` equal-width
    bands holds scores in [100 b / B, 100 (b + 1) / B), 100 in the top band; NULL for a
    NULL score (tested explicitly: DuckDB's least() skips NULL arguments). B is checked by
    the central var check (an integer from 1 to 100).
#}
{% macro dif_score_band(score) -%}
    {%- set bands = challenge_fairness.validated_var('dif_score_bands') -%}
    case
        when {{ score }} is not null
            then least(cast(floor({{ score }} * {{ bands }} / 100.0) as bigint), {{ bands - 1 }})
    end
{%- endmacro %}
