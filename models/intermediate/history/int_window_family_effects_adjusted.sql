{#
    One row per testable (window, challenge, model family) cell: the ability-adjusted
    contrast against the other families with its t test, on the window's attempts (macro
    fairness_family_effects_adjusted).
#}
with

cells as (
    select * from {{ ref('int_window_challenge_family_cells_trimmed') }}
),

abilities as (
    select * from {{ ref('int_window_family_abilities_estimated') }}
),

adjusted as (
    {{ fairness_family_effects_adjusted('cells', 'abilities', ['window_start']) }}
)

select * from adjusted
