{#
    One row per agent with scored attempts: its leaderboard score, rank and bootstrap rank
    interval, and its rank without the flagged challenges and with the flagged family
    effects taken out, each with the change and whether it is beyond chance
    (int_leaderboard_agents_ranked; docs/leaderboard.md).
#}
with

ranked as (
    select * from {{ ref('int_leaderboard_agents_ranked') }}
)

select
    cast(agent_id as varchar) as agent_id,
    cast(model_id as varchar) as model_id,
    cast(model_family as varchar) as model_family,
    cast(leaderboard_score as varchar) as leaderboard_score,
    cast(challenges as bigint) as challenges,
    cast(score as double) as score,
    cast(rank as bigint) as rank,
    cast(rank_ci_low as bigint) as rank_ci_low,
    cast(rank_ci_high as bigint) as rank_ci_high,
    cast(interval_level as double) as interval_level,
    cast(rank_upper_bound as bigint) as rank_upper_bound,
    cast(score_without_flagged as double) as score_without_flagged,
    cast(rank_without_flagged as bigint) as rank_without_flagged,
    cast(rank_change_without_flagged as bigint) as rank_change_without_flagged,
    cast(change_without_flagged_ci_low as bigint) as change_without_flagged_ci_low,
    cast(change_without_flagged_ci_high as bigint) as change_without_flagged_ci_high,
    cast(is_change_without_flagged_beyond_chance as boolean)
        as is_change_without_flagged_beyond_chance,
    cast(score_bias_adjusted as double) as score_bias_adjusted,
    cast(rank_bias_adjusted as bigint) as rank_bias_adjusted,
    cast(rank_change_bias_adjusted as bigint) as rank_change_bias_adjusted,
    cast(change_bias_adjusted_ci_low as bigint) as change_bias_adjusted_ci_low,
    cast(change_bias_adjusted_ci_high as bigint) as change_bias_adjusted_ci_high,
    cast(is_change_bias_adjusted_beyond_chance as boolean)
        as is_change_bias_adjusted_beyond_chance,
    cast(coalesce(rank_change_bias_adjusted <> 0, false) as boolean) as is_moved_by_bias,
    cast(status as varchar) as status,
    cast(reason as varchar) as reason
from ranked
