{%- set standing_columns = [
    'challenges', 'score', 'rank', 'rank_ci_low', 'rank_ci_high', 'rank_upper_bound',
    'score_without_flagged', 'rank_without_flagged', 'rank_change_without_flagged',
    'change_without_flagged_ci_low', 'change_without_flagged_ci_high',
    'is_change_without_flagged_beyond_chance',
    'score_bias_adjusted', 'rank_bias_adjusted', 'rank_change_bias_adjusted',
    'change_bias_adjusted_ci_low', 'change_bias_adjusted_ci_high',
    'is_change_bias_adjusted_beyond_chance', 'status', 'reason',
] -%}
{#
    One row per agent with scored attempts: its standing on the actual, the
    flagged-removed and the bias-adjusted leaderboards (int_leaderboard_impact_computed),
    with its model and family. fct_leaderboard and fct_leaderboard_family_shift read it.
#}
with

impact as (
    select * from {{ ref('int_leaderboard_impact_computed') }}
),

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

standings as (
    select
        impact.leaderboard_score,
        impact.interval_level,
        impact.status as leaderboard_status,
        impact.reason as leaderboard_reason,
        unnest(impact.agents) as standing
    from impact
),

ranked as (
    select
        standings.standing.agent_id,
        agents.model_id,
        models.model_family,
        standings.leaderboard_score,
        standings.interval_level,
        {% for column in standing_columns -%}
        standings.standing.{{ column }}{{ ',' if not loop.last }}
        {% endfor %}
    from standings
    inner join agents
        on standings.standing.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
)

select * from ranked
-- sqlfluff:exclude_rules:RF01,RF03,AM03,AM04,ST06,LT08,LT02
