{%- set min_results = var('dif_min_family_results') %}
with

banded as (
    select * from {{ ref('int_test_case_results_banded') }}
),

dif_tested as (
    select * from {{ ref('int_test_case_dif_tested') }}
),

family_totals as (
    select
        test_case_id,
        challenge_id,
        model_family,
        sum(passes + failures) as results,
        sum(passes) as passes,
        sum(passes + failures) >= {{ min_results }} as is_eligible
    from banded
    group by test_case_id, challenge_id, model_family
),

eligible_totals as (
    select
        test_case_id,
        sum(results) as results,
        sum(passes) as passes
    from family_totals
    where is_eligible
    group by test_case_id
),

family_dif_unnested as (
    select
        test_case_id,
        unnest(family_results) as family_dif
    from dif_tested
),

family_dif as (
    select
        test_case_id,
        family_dif.*
    from family_dif_unnested
),

compared as (
    select
        family_totals.test_case_id,
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
        on family_totals.test_case_id = eligible_totals.test_case_id
    left join family_dif
        on family_totals.test_case_id = family_dif.test_case_id
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

select
    cast(test_case_id as varchar) as test_case_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(model_family as varchar) as model_family,
    cast(results as bigint) as results,
    cast(passes as bigint) as passes,
    cast(passes / results as double) as pass_rate,
    cast(reference_results as bigint) as reference_results,
    cast(case when reference_results > 0 then reference_passes / reference_results end as double)
        as reference_pass_rate,
    cast(is_excluded_from_reference as boolean) as is_excluded_from_reference,
    cast(coalesce(informative_bands, 0) as bigint) as informative_bands,
    cast(common_odds_ratio as double) as common_odds_ratio,
    cast(d_dif as double) as d_dif,
    cast(d_dif_se as double) as d_dif_se,
    cast(d_dif_ci_low as double) as d_dif_ci_low,
    cast(d_dif_ci_high as double) as d_dif_ci_high,
    cast(1 - {{ var('alpha') }} as double) as interval_level,
    cast(mh_chi_square as double) as mh_chi_square,
    cast(mh_p_value as double) as mh_p_value,
    cast(p_value_beyond_negligible as double) as p_value_beyond_negligible,
    cast(coalesce(is_continuity_corrected, false) as boolean) as is_continuity_corrected,
    cast(case when status = 'tested' then ets_class end as varchar) as ets_class,
    cast(case when status = 'tested' then direction end as varchar) as direction,
    cast(status = 'tested' and ets_class = 'C' as boolean) as is_large_dif,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from classified
