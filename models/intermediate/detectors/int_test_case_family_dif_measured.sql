{# The per-family DIF steps are shared with rubric-item DIF (macros/dif/). #}
with

classified as (
    {{ dif_family_results(
        ref('int_test_case_results_banded'), ref('int_test_case_dif_tested'), 'test_case_id'
    ) }}
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
