{#
    One row per (item, model family) with results, from the banded relation of
    dif_items_tested and its output `tested_relation`: the family's results and passes, the
    reference (the other eligible families, purified), and its Mantel-Haenszel DIF with
    status and reason ('tested', 'insufficient_evidence' below `dif_min_family_results`,
    'not_testable'). Columns are not yet cast: the calling mart casts them.
    Shared by test-case and rubric-item DIF.
#}
{% macro dif_family_results(banded_relation, tested_relation, item_key) -%}
{%- set min_results = var('dif_min_family_results') %}
with

banded as (
    select * from {{ banded_relation }}
),

dif_tested as (
    select * from {{ tested_relation }}
),

family_totals as (
    select
        {{ item_key }},
        challenge_id,
        model_family,
        sum(passes + failures) as results,
        sum(passes) as passes,
        sum(passes + failures) >= {{ min_results }} as is_eligible
    from banded
    group by {{ item_key }}, challenge_id, model_family
),

eligible_totals as (
    select
        {{ item_key }},
        sum(results) as results,
        sum(passes) as passes
    from family_totals
    where is_eligible
    group by {{ item_key }}
),

family_dif_unnested as (
    select
        {{ item_key }},
        unnest(family_results) as family_dif
    from dif_tested
),

family_dif as (
    select
        {{ item_key }},
        family_dif.*
    from family_dif_unnested
),

compared as (
    select
        family_totals.{{ item_key }},
        family_totals.challenge_id,
        family_totals.model_family,
        family_totals.results,
        family_totals.passes,
        family_totals.is_eligible,
        coalesce(
            family_dif.reference_results,
            coalesce(eligible_totals.results, 0)
                - case when family_totals.is_eligible then family_totals.results else 0 end
        ) as reference_results,
        coalesce(
            family_dif.reference_passes,
            coalesce(eligible_totals.passes, 0)
                - case when family_totals.is_eligible then family_totals.passes else 0 end
        ) as reference_passes,
        coalesce(family_dif.is_excluded_from_reference, false) as is_excluded_from_reference,
        family_dif.informative_bands,
        family_dif.common_odds_ratio,
        family_dif.d_dif,
        family_dif.d_dif_se,
        family_dif.d_dif_ci_low,
        family_dif.d_dif_ci_high,
        family_dif.mh_chi_square,
        family_dif.mh_p_value,
        family_dif.p_value_beyond_negligible,
        family_dif.is_continuity_corrected,
        family_dif.ets_class,
        family_dif.direction,
        family_dif.status as dif_status,
        family_dif.reason as dif_reason
    from family_totals
    left join eligible_totals
        on family_totals.{{ item_key }} = eligible_totals.{{ item_key }}
    left join family_dif
        on family_totals.{{ item_key }} = family_dif.{{ item_key }}
        and family_totals.model_family = family_dif.model_family
),

classified as (
    select
        *,
        case
            when not is_eligible then 'insufficient_evidence'
            when reference_results = 0 then 'not_testable'
            when dif_status = 'ok' then 'tested'
            else 'not_testable'
        end as status,
        case
            when not is_eligible
                then results || ' scored results, fewer than dif_min_family_results = {{ min_results }}'
            when reference_results = 0
                then 'no other family has at least dif_min_family_results = {{ min_results }} scored results'
            else dif_reason
        end as reason
    from compared
)

select * from classified
{%- endmacro %}
