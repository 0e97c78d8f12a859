{#
    One row per item of `family_dif_relation` (a mart or model with the per-family columns
    of dif_family_results plus `is_large_dif`): how many families were compared, how many
    show large (ETS C) DIF with a sentence each, and the lead family (large DIF first, then
    the largest |D-DIF|; none where no family's D-DIF could be estimated). `outcome_verb`
    words the sentence: 'family X <verb> it less often than equally scored attempts of the
    other families' ('passes' for test cases, 'earns' for rubric items). Shared by
    test-case and rubric-item DIF.
#}
{% macro dif_item_summaries(family_dif_relation, item_key, outcome_verb) -%}
with

families_compared as (
    select * from {{ family_dif_relation }}
),

described_families as (
    select
        *,
        'family ' || model_family || ' {{ outcome_verb }} it '
            || case when d_dif < 0 then 'less' else 'more' end
            || ' often than equally scored attempts of the other families (MH D-DIF '
            || {{ format_number('d_dif', '%+.2f') }} || ', SE '
            || {{ format_number('d_dif_se', '%.2f') }} || ', ETS ' || ets_class || ')'
            as evidence,
        row_number() over (
            partition by {{ item_key }}
            order by is_large_dif desc, abs(d_dif) desc nulls last, model_family
        ) as lead_rank
    from families_compared
),

family_summaries as (
    select
        {{ item_key }},
        count(*) as families,
        count(*) filter (where is_large_dif) as large_dif_families,
        max(ets_class) as largest_ets_class,
        string_agg(evidence, '; ' order by abs(d_dif) desc) filter (where is_large_dif)
            as large_dif_evidence,
        max(case when lead_rank = 1 and d_dif is not null then model_family end) as lead_family,
        max(case when lead_rank = 1 and d_dif is not null then d_dif end) as lead_d_dif,
        max(case when lead_rank = 1 and d_dif is not null then d_dif_se end) as lead_d_dif_se,
        max(case when lead_rank = 1 and d_dif is not null then ets_class end) as lead_ets_class,
        max(case when lead_rank = 1 and d_dif is not null then evidence end) as lead_evidence
    from described_families
    group by {{ item_key }}
)

select * from family_summaries
{%- endmacro %}
