{#
    One row per flagged challenge (all-time verdict 'flagged'): how many agents change
    rank when it alone is removed, or when its flagged family effects alone are taken out,
    the largest move, and who rises and who falls (int_leaderboard_impact_computed).
#}
with

impact as (
    select * from {{ ref('int_leaderboard_impact_computed') }}
),

family_effects as (
    select * from {{ ref('int_family_effects_flagged') }}
    where verdict_window = 'all'
        and is_flagged
),

flagged_families as (
    select
        challenge_id,
        string_agg(
            model_family || ' ' || {{ format_number('adjusted_deviation', '%+.1f') }},
            ', ' order by model_family
        ) as flagged_families
    from family_effects
    group by challenge_id
),

impacts as (
    select unnest(impact.challenge_impacts) as challenge_impact
    from impact
),

described as (
    select
        impacts.challenge_impact.challenge_id,
        flagged_families.flagged_families,
        impacts.challenge_impact.agents_moved_removed,
        impacts.challenge_impact.largest_move_removed,
        impacts.challenge_impact.agents_moved_adjusted,
        impacts.challenge_impact.largest_move_adjusted,
        impacts.challenge_impact.agents_rising,
        impacts.challenge_impact.agents_falling,
        impacts.challenge_impact.rising_agents,
        impacts.challenge_impact.falling_agents,
        impacts.challenge_impact.status,
        impacts.challenge_impact.reason
    from impacts
    left join flagged_families
        on impacts.challenge_impact.challenge_id = flagged_families.challenge_id
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(flagged_families as varchar) as flagged_families,
    cast(agents_moved_removed as bigint) as agents_moved_removed,
    cast(largest_move_removed as bigint) as largest_move_removed,
    cast(agents_moved_adjusted as bigint) as agents_moved_adjusted,
    cast(largest_move_adjusted as bigint) as largest_move_adjusted,
    cast(agents_rising as bigint) as agents_rising,
    cast(agents_falling as bigint) as agents_falling,
    cast(rising_agents as varchar) as rising_agents,
    cast(falling_agents as varchar) as falling_agents,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from described
