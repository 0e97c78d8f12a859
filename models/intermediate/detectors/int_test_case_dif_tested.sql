{#
    One row per test case with scored results: the generalised Cochran-Mantel-Haenszel test
    across the families that have at least `dif_min_family_results` scored results on it,
    and each such family's Mantel-Haenszel DIF against the others (cf_test_case_dif over
    the test case's (family, band, passes, failures) lists). Benjamini-Hochberg q-values
    across every test case whose GCMH is computable.
#}
with

banded as (
    select * from {{ ref('int_test_case_results_banded') }}
),

family_totals as (
    select
        test_case_id,
        model_family,
        sum(passes + failures) as results
    from banded
    group by test_case_id, model_family
),

eligible_cells as (
    select banded.*
    from banded
    inner join family_totals
        on banded.test_case_id = family_totals.test_case_id
        and banded.model_family = family_totals.model_family
    where family_totals.results >= {{ var('dif_min_family_results') }}
),

test_case_lists as (
    select
        test_case_id,
        count(distinct model_family) as families_tested,
        list(model_family order by model_family, score_band) as families_list,
        list(score_band order by model_family, score_band) as bands_list,
        list(passes order by model_family, score_band) as passes_list,
        list(failures order by model_family, score_band) as failures_list
    from eligible_cells
    group by test_case_id
),

tested as (
    select
        test_case_id,
        families_tested,
        {{ test_case_dif(
            'families_list', 'bands_list', 'passes_list', 'failures_list',
            var('alpha'), var('dif_negligible_d_dif'), var('dif_large_d_dif')
        ) }} as dif
    from test_case_lists
),

flattened as (
    select
        test_case_id,
        families_tested,
        dif.gcmh_statistic,
        dif.gcmh_df,
        dif.gcmh_p_value,
        dif.informative_bands,
        dif.status,
        dif.reason,
        dif.families as family_results
    from tested
),

q_values as (
    {{ benjamini_hochberg('flattened', 'test_case_id', 'gcmh_p_value') }}
),

adjusted as (
    select
        flattened.*,
        q_values.q_value as gcmh_q_value
    from flattened
    left join q_values
        on flattened.test_case_id = q_values.test_case_id
)

select * from adjusted
