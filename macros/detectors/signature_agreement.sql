{# How many positions two equally long MinHash signatures agree on. #}
{% macro signature_agreement(signature_a, signature_b) -%}
    {{ return(adapter.dispatch('signature_agreement', 'challenge_fairness')(signature_a, signature_b)) }}
{%- endmacro %}

{% macro duckdb__signature_agreement(signature_a, signature_b) -%}
    len(list_filter(
        list_zip({{ signature_a }}, {{ signature_b }}),
        lambda pair: pair[1] = pair[2]
    ))
{%- endmacro %}

{% macro default__signature_agreement(signature_a, signature_b) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("signature_agreement: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
