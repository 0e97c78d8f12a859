{#
    One row per (window, clean challenge) for every window of the history: eligibility on
    the window's attempts, max-t p, Benjamini-Hochberg q across the window's judged
    challenges and the window's Benjamini-Bogomolov cutoff (macro fairness_challenges_tested).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

windows as (
    select * from {{ ref('int_verdict_windows_spined') }}
),

family_summaries as (
    select * from {{ ref('int_window_challenge_families_summarised') }}
),

abilities as (
    select * from {{ ref('int_window_family_abilities_estimated') }}
),

effects as (
    select * from {{ ref('int_window_family_effects_adjusted') }}
),

challenge_windows as (
    select
        windows.window_start,
        challenges.challenge_id
    from challenges
    cross join windows
),

tested as (
    {{ fairness_challenges_tested(
        'challenge_windows', 'family_summaries', 'abilities', 'effects', ['window_start']
    ) }}
)

select * from tested
