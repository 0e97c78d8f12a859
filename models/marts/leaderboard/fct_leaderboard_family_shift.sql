{#
    One row per model family with an agent on the leaderboard: the mean rank change of
    its ranked agents when the flagged family effects are taken out (and when the flagged
    challenges are removed), how many of them move, and how many beyond chance.
#}
with

ranked as (
    select * from {{ ref('int_leaderboard_agents_ranked') }}
),

family_effects as (
    select * from {{ ref('int_family_effects_flagged') }}
    where verdict_window = 'all'
        and is_flagged
),

flagged_challenges as (
    select
        model_family,
        count(*) as flagged_challenges
    from family_effects
    group by model_family
),

shifts as (
    select
        model_family,
        count(*) as agents,
        count(rank) as ranked_agents,
        avg(rank_change_bias_adjusted) as mean_rank_change_bias_adjusted,
        avg(rank_change_without_flagged) as mean_rank_change_without_flagged,
        count(*) filter (where rank_change_bias_adjusted <> 0) as agents_moved_bias_adjusted,
        count(*) filter (where is_change_bias_adjusted_beyond_chance)
            as agents_beyond_chance_bias_adjusted,
        count(*) filter (where is_change_without_flagged_beyond_chance)
            as agents_beyond_chance_without_flagged,
        max(rank_change_bias_adjusted) as largest_fall_bias_adjusted,
        min(rank_change_bias_adjusted) as largest_rise_bias_adjusted
    from ranked
    group by model_family
)

select
    cast(shifts.model_family as varchar) as model_family,
    cast(shifts.agents as bigint) as agents,
    cast(shifts.ranked_agents as bigint) as ranked_agents,
    cast(coalesce(flagged_challenges.flagged_challenges, 0) as bigint) as flagged_challenges,
    cast(shifts.mean_rank_change_bias_adjusted as double) as mean_rank_change_bias_adjusted,
    cast(shifts.mean_rank_change_without_flagged as double) as mean_rank_change_without_flagged,
    cast(shifts.agents_moved_bias_adjusted as bigint) as agents_moved_bias_adjusted,
    cast(shifts.agents_beyond_chance_bias_adjusted as bigint)
        as agents_beyond_chance_bias_adjusted,
    cast(shifts.agents_beyond_chance_without_flagged as bigint)
        as agents_beyond_chance_without_flagged,
    cast(shifts.largest_fall_bias_adjusted as bigint) as largest_fall_bias_adjusted,
    cast(shifts.largest_rise_bias_adjusted as bigint) as largest_rise_bias_adjusted
from shifts
left join flagged_challenges
    on shifts.model_family = flagged_challenges.model_family
