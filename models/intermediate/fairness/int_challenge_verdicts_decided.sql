{#
    One row per (verdict window, clean challenge): the verdict ('flagged', 'pass',
    'insufficient_evidence', 'not_testable') with its reason and the lead family's effect
    (macro fairness_challenge_verdicts). The window 'all' is the all-time verdict of
    fct_challenge_verdicts; the other windows are the verdict history.
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
),

family_effects as (
    select * from {{ ref('int_family_effects_flagged') }}
),

decided as (
    {{ fairness_challenge_verdicts(
        'challenges', 'challenges_tested', 'family_effects', ['verdict_window']
    ) }}
)

select * from decided
