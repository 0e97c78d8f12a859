{#
    One row per clean challenge: whether it can be judged (eligibility), and for those that
    can, the max-t test across its families (the smallest Sidak-adjusted p) with
    Benjamini-Hochberg q-values across all judged challenges, and the Benjamini-Bogomolov
    `selection_p_cutoff` (macros/fairness/fairness_challenges_tested.sql, shared with the
    verdict history).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
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

tested as (
    {{ fairness_challenges_tested('challenges', 'family_summaries', 'abilities', 'effects') }}
)

select * from tested
