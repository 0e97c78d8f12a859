{#
    One row per testable (verdict window, challenge, model family) cell: the
    ability-adjusted family effect against the other families, with its Welch t test and
    Sidak-adjusted p (a max-t test over the challenge's K contrasts). Definition in
    macros/fairness/fairness_family_effects_adjusted.sql.
#}
with

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
),

adjusted as (
    {{ fairness_family_effects_adjusted('cells', 'abilities', ['verdict_window']) }}
)

select * from adjusted
