{#
    One row per (verdict window, challenge, model family) with scored attempts in the
    window: the adjusted effect with its interval and the significant / flagged /
    within-threshold flags (macro fairness_family_effects_flagged). The window 'all' is
    fct_family_adjusted_effects.
#}
with

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
),

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
),

effects as (
    select * from {{ ref('int_family_effects_adjusted') }}
),

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
),

flagged as (
    {{ fairness_family_effects_flagged(
        'family_summaries', 'cells', 'abilities', 'effects', 'challenges_tested', ['verdict_window']
    ) }}
)

select * from flagged
