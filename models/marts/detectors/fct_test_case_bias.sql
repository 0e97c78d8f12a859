with

test_cases as (
    select * from {{ ref('int_keyed__test_cases') }}
),

test_results as (
    select * from {{ ref('int_keyed__test_results') }}
),

dif_tested as (
    select * from {{ ref('int_test_case_dif_tested') }}
),

family_dif as (
    select * from {{ ref('int_test_case_family_dif_measured') }}
),

results_counted as (
    select
        test_results.test_case_id,
        cast(sum(test_results.results) filter (where test_results.score_band is not null) as bigint)
            as results,
        cast(sum(test_results.results) filter (where test_results.score_band is null) as bigint)
            as unscored_results
    from test_results
    group by test_results.test_case_id
),

family_summaries as (
    {{ dif_item_summaries('family_dif', 'test_case_id', 'passes') }}
),

judged as (
    select
        test_cases.test_case_id,
        test_cases.challenge_id,
        coalesce(results_counted.results, 0) as results,
        coalesce(results_counted.unscored_results, 0) as unscored_results,
        coalesce(family_summaries.families, 0) as families,
        coalesce(dif_tested.families_tested, 0) as families_tested,
        coalesce(dif_tested.informative_bands, 0) as informative_bands,
        dif_tested.gcmh_statistic,
        dif_tested.gcmh_df,
        dif_tested.gcmh_p_value,
        dif_tested.gcmh_q_value,
        family_summaries.largest_ets_class,
        coalesce(family_summaries.large_dif_families, 0) as large_dif_families,
        family_summaries.lead_family,
        family_summaries.lead_d_dif,
        family_summaries.lead_d_dif_se,
        family_summaries.lead_ets_class,
        {{ dif_item_verdict() }} as verdict,
        {{ dif_item_verdict_reason(
            'pass', 'check whether it tests names or formats rather than behaviour'
        ) }} as reason
    from test_cases
    left join results_counted
        on test_cases.test_case_id = results_counted.test_case_id
    left join dif_tested
        on test_cases.test_case_id = dif_tested.test_case_id
    left join family_summaries
        on test_cases.test_case_id = family_summaries.test_case_id
)

select
    cast(test_case_id as varchar) as test_case_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(verdict as varchar) as verdict,
    cast(verdict = 'review_recommended' as boolean) as is_review_recommended,
    cast(reason as varchar) as reason,
    cast(results as bigint) as results,
    cast(unscored_results as bigint) as unscored_results,
    cast(families as bigint) as families,
    cast(families_tested as bigint) as families_tested,
    cast(informative_bands as bigint) as informative_bands,
    cast(gcmh_statistic as double) as gcmh_statistic,
    cast(gcmh_df as bigint) as gcmh_df,
    cast(gcmh_p_value as double) as gcmh_p_value,
    cast(gcmh_q_value as double) as gcmh_q_value,
    cast(largest_ets_class as varchar) as largest_ets_class,
    cast(large_dif_families as bigint) as large_dif_families,
    cast(lead_family as varchar) as lead_family,
    cast(lead_d_dif as double) as lead_d_dif,
    cast(lead_d_dif_se as double) as lead_d_dif_se,
    cast(lead_ets_class as varchar) as lead_ets_class
from judged
