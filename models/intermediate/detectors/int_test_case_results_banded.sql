{#
    Test results for the DIF: one row per (test case, model family, score band) with passes
    and failures, summed from the compressed results (int_keyed__test_results: one row
    per test case, agent, band, outcome). Band b of B = `dif_score_bands` equal-width bands
    holds attempt scores in [100 b / B, 100 (b + 1) / B); the top band includes 100.
    Results of unscored attempts (band NULL) cannot be matched on the score and are left
    out (counted in fct_test_case_bias).
#}
with

test_results as (
    select * from {{ ref('int_keyed__test_results') }}
),

test_cases as (
    select * from {{ ref('int_keyed__test_cases') }}
),

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

banded as (
    select
        test_results.test_case_id,
        test_cases.challenge_id,
        models.model_family,
        test_results.score_band,
        cast(coalesce(sum(test_results.results) filter (where test_results.passed), 0) as bigint)
            as passes,
        cast(
            coalesce(sum(test_results.results) filter (where not test_results.passed), 0) as bigint
        ) as failures
    from test_results
    inner join test_cases
        on test_results.test_case_id = test_cases.test_case_id
    inner join agents
        on test_results.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    where test_results.score_band is not null
    group by
        test_results.test_case_id,
        test_cases.challenge_id,
        models.model_family,
        test_results.score_band
)

select * from banded
