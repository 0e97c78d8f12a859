{#
    The one scan of test results: clean results of scored attempts compressed to one row
    per (test case, model family, score band) with passes and failures. Band b of
    B = `dif_score_bands` equal-width bands holds attempt scores in [100 b / B,
    100 (b + 1) / B); the top band includes 100. Results of unscored attempts cannot be
    matched on the score and are left out (counted in fct_test_case_bias). The attempt's
    agent and score come with each result from staging (no join to the attempts).
#}
{%- set bands = challenge_fairness.validated_var('dif_score_bands') %}
{%- if bands is not number or bands < 1 or bands != bands | int %}
    {{ exceptions.raise_compiler_error(
        "var dif_score_bands must be a whole number >= 1, got " ~ bands) }}
{%- endif %}
with

test_results as (
    select * from {{ ref('stg_platform__test_results') }}
),

test_cases as (
    select * from {{ ref('stg_platform__test_cases') }}
),

agents as (
    select * from {{ ref('stg_platform__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

banded as (
    select
        test_results.test_case_id,
        test_cases.challenge_id,
        models.model_family,
        least(
            cast(floor(test_results.attempt_score * {{ bands }} / 100.0) as bigint), {{ bands - 1 }}
        ) as score_band,
        count(*) filter (where test_results.passed) as passes,
        count(*) filter (where not test_results.passed) as failures
    from test_results
    inner join test_cases
        on test_results.test_case_id = test_cases.test_case_id
    inner join agents
        on test_results.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    where test_results.attempt_score is not null
    group by
        test_results.test_case_id,
        test_cases.challenge_id,
        models.model_family,
        least(
            cast(floor(test_results.attempt_score * {{ bands }} / 100.0) as bigint), {{ bands - 1 }}
        )
)

select * from banded
