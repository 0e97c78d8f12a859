{#
    One row per (verdict window, challenge, model family) cell: the family's ability
    estimated from its results on the OTHER challenges of the same window
    (leave-this-challenge-out), net of challenge difficulty. The fit is documented in
    macros/fairness/fairness_family_abilities_estimated.sql.
#}
with

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
),

estimated as (
    {{ fairness_family_abilities_estimated('cells', ['verdict_window']) }}
)

select * from estimated
