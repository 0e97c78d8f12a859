{#
    One row per (window, challenge, model family) cell: the family's ability fitted on the
    window's cells alone, leaving this challenge out (macro
    fairness_family_abilities_estimated, partitioned by window).
#}
with

cells as (
    select * from {{ ref('int_window_challenge_family_cells_trimmed') }}
),

estimated as (
    {{ fairness_family_abilities_estimated('cells', ['window_start']) }}
)

select * from estimated
