{#
    One row: the platform's leaderboard as `leaderboard_score` computes it, from the
    compressed agent x challenge facts (int_agent_challenge_scores_summarised, never
    attempts), with its seeded bootstrap over challenges and the two counterfactuals.
    A challenge is flagged when its all-time verdict is 'flagged'; on it, each flagged
    family's ability-adjusted effect (int_family_effects_flagged, window 'all'; half of
    it with two families on the challenge) is the adjustment subtracted from that
    family's agents' mean scores. The struct lists one
    standing per agent with scored attempts and one impact per flagged challenge
    (int_leaderboard_agents_ranked, fct_leaderboard_challenge_impact unnest them).
    Rebuilt from the facts on every run, so an incremental run equals a full refresh.
#}
with

cells as (
    select * from {{ ref('int_agent_challenge_scores_summarised') }}
),

verdicts as (
    select * from {{ ref('int_challenge_verdicts_decided') }}
    where verdict_window = 'all'
        and verdict = 'flagged'
),

family_effects as (
    {#- With two families on a challenge their contrasts are mirror images (+d and -d),
        and either family's bias explains the gap: half of it is taken from each, which
        closes the gap once (taking both whole closed it twice). The ranks are those of
        either attribution. #}
    select
        challenge_id,
        model_family,
        case
            when count(adjusted_deviation) over (partition by challenge_id) = 2
                then adjusted_deviation / 2
            else adjusted_deviation
        end as adjustment
    from {{ ref('int_family_effects_flagged') }}
    where verdict_window = 'all'
    qualify is_flagged
),

cells_adjusted as (
    select
        cells.agent_id,
        cells.challenge_id,
        cells.scored_attempts,
        cells.score_sum,
        coalesce(family_effects.adjustment, 0.0) as adjustment,
        verdicts.challenge_id is not null as is_flagged_challenge
    from cells
    left join verdicts
        on cells.challenge_id = verdicts.challenge_id
    left join family_effects
        on verdicts.challenge_id = family_effects.challenge_id
        and cells.model_family = family_effects.model_family
),

computed as (
    select
        {{ challenge_fairness.leaderboard_impact(
            'list(agent_id order by agent_id, challenge_id)',
            'list(challenge_id order by agent_id, challenge_id)',
            'list(scored_attempts order by agent_id, challenge_id)',
            'list(score_sum order by agent_id, challenge_id)',
            'list(adjustment order by agent_id, challenge_id)',
            'list(is_flagged_challenge order by agent_id, challenge_id)',
            challenge_fairness.sql_string_literal(var('leaderboard_score')),
            var('leaderboard_min_challenges'),
            var('leaderboard_min_cell_attempts'),
            var('leaderboard_interval_level'),
            var('leaderboard_bootstrap_resamples'),
            var('leaderboard_bootstrap_seed'),
        ) }} as impact
    from cells_adjusted
)

select
    cast({{ challenge_fairness.sql_string_literal(var('leaderboard_score')) }} as varchar)
        as leaderboard_score,
    cast({{ var('leaderboard_interval_level') }} as double) as interval_level,
    coalesce(impact.status, 'not_computable') as status,
    case when impact is null then 'no agent has scored attempts' else impact.reason end as reason,
    coalesce(impact.ranked_agents, 0) as ranked_agents,
    coalesce(impact.challenges, 0) as challenges,
    coalesce(impact.flagged_challenges, 0) as flagged_challenges,
    impact.agents,
    impact.challenge_impacts
from computed
