with

verdict_history as (
    select * from {{ ref('fct_challenge_verdict_history') }}
),

windows as (
    select * from {{ ref('int_verdict_windows_spined') }}
),

counted as (
    select
        windows.window_start,
        windows.window_end,
        count(verdict_history.challenge_id) filter (where verdict_history.attempts > 0)
            as challenges_with_attempts,
        count(verdict_history.challenge_id) filter (where verdict_history.is_tested)
            as eligible_challenges,
        count(verdict_history.challenge_id) filter (where verdict_history.verdict = 'pass')
            as passing_challenges,
        count(verdict_history.challenge_id) filter (where verdict_history.verdict = 'flagged')
            as flagged_challenges,
        count(verdict_history.challenge_id) filter (
            where verdict_history.is_tested
            and verdict_history.verdict = 'insufficient_evidence'
        ) as uncertain_challenges,
        count(verdict_history.challenge_id) filter (where verdict_history.is_fixed)
            as fixed_challenges,
        count(verdict_history.challenge_id) filter (where verdict_history.is_drift)
            as drifted_challenges
    from windows
    left join verdict_history
        on windows.window_start = verdict_history.window_start
    group by windows.window_start, windows.window_end
),

scored as (
    select
        *,
        cast(passing_challenges as double) / nullif(eligible_challenges, 0)
            as platform_fairness_score
    from counted
),

changed as (
    select
        *,
        platform_fairness_score
        - lag(platform_fairness_score) over (order by window_start) as score_change
    from scored
)

select
    cast(window_start as date) as window_start,
    cast(window_end as date) as window_end,
    cast(challenges_with_attempts as bigint) as challenges_with_attempts,
    cast(eligible_challenges as bigint) as eligible_challenges,
    cast(passing_challenges as bigint) as passing_challenges,
    cast(flagged_challenges as bigint) as flagged_challenges,
    cast(uncertain_challenges as bigint) as uncertain_challenges,
    cast(platform_fairness_score as double) as platform_fairness_score,
    cast(score_change as double) as score_change,
    cast(fixed_challenges as bigint) as fixed_challenges,
    cast(drifted_challenges as bigint) as drifted_challenges
from changed
