{#
    One row per (verdict window, challenge, model family) cell: the family's ability
    estimated from its results on the OTHER challenges of the same window
    (leave-this-challenge-out), net of challenge difficulty. The fit is documented in
    macros/fairness/fairness_family_abilities_estimated.sql.

    Purified (as the matching score of DIF analysis is): a family biased on some
    challenges would carry that bias into its ability, which then shrinks the effect where
    it is biased and shows the opposite effect on its fair challenges (gpt at -15 on 15 of
    62 challenges was estimated 3.1 to 3.4 points too small on average, and 11 or 14 of
    the 15 were found). So the verdict chain is run on a first fit, the cells it flags are
    left out of a new fit, and so on `ability_purification_rounds` times (default 1, 0: the
    first fit); the verdict chain downstream runs on the last fit. Each round is the same
    macros as the chain's models (fairness_family_effects_adjusted,
    fairness_challenges_tested, fairness_family_effects_flagged), on each window's cells
    alone. Each step is a materialized CTE: every later step reads it several times, and
    DuckDB would otherwise plan the whole chain again at each read. A round is about 25
    joins and aggregates in this one query, and DuckDB holds a few MB for each whatever
    the rows: on 2,856 cells the model needs under 16MB without purification, 60MB with
    one round and 96MB with two, so the default is one round, which fits the 64MB cap of
    tests/test_memory_cap.py.
#}
{%- set rounds = challenge_fairness.validated_var('ability_purification_rounds') | int %}
with

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
),

abilities_fitted_0 as {{ materialized_cte() }} (
    {{ fairness_family_abilities_estimated('cells', ['verdict_window']) }}
),
{%- if rounds > 0 %}

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
),

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

windows as (
    select * from {{ ref('int_verdict_windows_spined') }}
),

challenge_windows as (
    {{ verdict_challenge_windows('challenges', 'windows') }}
),
{%- endif %}
{%- for round in range(1, rounds + 1) %}
{%- set before = 'abilities_fitted_' ~ (round - 1) %}

effects_round_{{ round }} as {{ materialized_cte() }} (
    {{ fairness_family_effects_adjusted('cells', before, ['verdict_window']) }}
),

tested_round_{{ round }} as {{ materialized_cte() }} (
    {{ fairness_challenges_tested(
        'challenge_windows', 'family_summaries', before, 'effects_round_' ~ round,
        ['verdict_window']
    ) }}
),

flagged_round_{{ round }} as {{ materialized_cte() }} (
    {{ fairness_family_effects_flagged(
        'family_summaries', 'cells', before, 'effects_round_' ~ round,
        'tested_round_' ~ round, ['verdict_window']
    ) }}
),

cells_round_{{ round }} as (
    select
        cells.*,
        flagged_round_{{ round }}.is_flagged as is_flagged_before
    from cells
    left join flagged_round_{{ round }}
        on cells.verdict_window = flagged_round_{{ round }}.verdict_window
        and cells.challenge_id = flagged_round_{{ round }}.challenge_id
        and cells.model_family = flagged_round_{{ round }}.model_family
),

abilities_fitted_{{ round }} as {{ materialized_cte() }} (
    {{ fairness_family_abilities_estimated(
        'cells_round_' ~ round, ['verdict_window'], excluded='is_flagged_before'
    ) }}
),
{%- endfor %}

estimated as (
    select * from abilities_fitted_{{ rounds }}
)

select * from estimated
