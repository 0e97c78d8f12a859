{#
    One row per (verdict window, clean challenge), for the window 'all' and every window of
    the history: whether the challenge can be judged on the window's attempts
    (eligibility), and for those that can, the max-t test across its families (the
    smallest Sidak-adjusted p) with Benjamini-Hochberg q-values across the window's judged
    challenges, and the Benjamini-Bogomolov `selection_p_cutoff`
    (macros/fairness/fairness_challenges_tested.sql).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

windows as (
    select * from {{ ref('int_verdict_windows_spined') }}
),

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
),

effects as (
    select * from {{ ref('int_family_effects_adjusted') }}
),

challenge_windows as (
    {{ verdict_challenge_windows('challenges', 'windows') }}
),

tested as (
    {{ fairness_challenges_tested(
        'challenge_windows', 'family_summaries', 'abilities', 'effects', ['verdict_window']
    ) }}
)

select * from tested
