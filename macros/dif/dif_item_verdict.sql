{#
    The verdict of one DIF item (test case or rubric item) and its reason in words, from the
    item's `dif_tested` row (generalised CMH across families, BH q) and its
    `family_summaries` row (the families' ETS classes): review_recommended when q < alpha
    and some family's DIF is large (ETS C). `verb` says what families do with the item
    ('pass', 'earn'); `large_dif_advice` what a reviewer should check when it is flagged,
    `large_dif_suffix` an optional SQL expression appended to that reason.
    Shared by fct_test_case_bias and fct_rubric_item_bias.
#}
{% macro dif_item_verdict() %}
    case
        when coalesce(dif_tested.families_tested, 0) < 2 then 'insufficient_evidence'
        when (dif_tested.status is distinct from 'ok') then 'not_testable'
        when dif_tested.gcmh_q_value < {{ var('alpha') }}
            and family_summaries.large_dif_families > 0 then 'review_recommended'
        else 'no_large_dif'
    end
{% endmacro %}

{% macro dif_item_verdict_reason(verb, large_dif_advice, large_dif_suffix=none) %}
    {%- set alpha = var('alpha') %}
    case
        when coalesce(dif_tested.families_tested, 0) < 2 then
            coalesce(dif_tested.families_tested, 0)
            || ' families with at least dif_min_family_results = {{ var("dif_min_family_results") }}'
            || ' scored results; DIF needs two'
        when (dif_tested.status is distinct from 'ok') then
            'generalised CMH not computable: ' || dif_tested.reason
        when dif_tested.gcmh_q_value < {{ alpha }}
            and family_summaries.large_dif_families > 0 then
            family_summaries.large_dif_evidence
            || '; families {{ verb }} it at different rates within score bands (generalised CMH q = '
            || {{ format_number('dif_tested.gcmh_q_value', '%.2g') }}
            || ' < alpha = {{ alpha }}): {{ large_dif_advice }}'
            {%- if large_dif_suffix %} || {{ large_dif_suffix }}{% endif %}
        when dif_tested.gcmh_q_value < {{ alpha }} then
            'families {{ verb }} it at different rates within score bands (generalised CMH q = '
            || {{ format_number('dif_tested.gcmh_q_value', '%.2g') }}
            || '), but no family''s DIF is large (largest: '
            || coalesce(family_summaries.lead_evidence, 'none computable') || ')'
        else
            'no evidence that families {{ verb }} it at different rates at the same score'
            || ' (generalised CMH q = '
            || {{ format_number('dif_tested.gcmh_q_value', '%.2g') }} || ' >= alpha = {{ alpha }})'
    end
{% endmacro %}
