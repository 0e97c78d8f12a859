{#
    The weekly review queue, from the scan history: for each week, the latest scan filed in
    it; one item per root cause (cause_id) with findings in that scan: the challenges it
    spans, the decisive action and why, and its harm (effect size times the attempts it
    affects), which orders the queue.
#}
{%- set trend_actions = ['rewrite_challenge', 'watch'] %}
with

scans as (
    select * from {{ ref('rpt_daily_bias_scan') }}
),

leaderboard_impacts as (
    select * from {{ ref('fct_leaderboard_challenge_impact') }}
),

causes_keyed as (
    select
        *,
        cast(date_trunc('week', scan_date) as date) as week_start,
        {#- scans filed before cause_id existed: one cause per challenge and detector #}
        coalesce(cause_id, detector || ':' || challenge_id) as item_cause_id
    from scans
),

latest_scans_per_week as (
    select
        week_start,
        max(scan_date) as scan_date
    from causes_keyed
    group by week_start
),

week_findings as (
    select causes_keyed.*
    from causes_keyed
    inner join latest_scans_per_week
        on causes_keyed.week_start = latest_scans_per_week.week_start
        and causes_keyed.scan_date = latest_scans_per_week.scan_date
),

{#- The decisive finding of a cause: the action that comes first (action_precedence), then
    the finding farthest beyond its threshold, then the smallest q. #}
ranked_findings as (
    select
        *,
        row_number() over (
            partition by week_start, item_cause_id
            order by
                action_precedence,
                severity desc nulls last,
                q_value asc nulls last,
                challenge_id,
                detector,
                finding_id
        ) as finding_rank
    from week_findings
),

{#- Per challenge of a cause: its own decisive action (a cause may act differently on its
    challenges, e.g. rewrite one API challenge and watch another). #}
challenge_actions as (
    select
        week_start,
        item_cause_id,
        challenge_id,
        arg_min(recommended_action, action_precedence) as challenge_action,
        max(challenge_attempts) as challenge_attempts,
        bool_or(verdict = 'flagged') as is_flagged_challenge
    from week_findings
    group by week_start, item_cause_id, challenge_id
),

challenge_lists as (
    select
        week_start,
        item_cause_id,
        count(*) as challenges,
        string_agg(challenge_id, ', ' order by challenge_id) as challenge_ids,
        string_agg(challenge_id || ': ' || challenge_action, '; ' order by challenge_id)
            as challenge_actions,
        sum(coalesce(challenge_attempts, 0)) as attempts_affected,
        count(*) filter (where is_flagged_challenge) as flagged_challenges
    from challenge_actions
    group by week_start, item_cause_id
),

{#- Leaderboard impact (fct_leaderboard_challenge_impact, the current leaderboard): the
    agents the cause's most consequential flagged challenge moves when its family effects
    are taken out, and the largest move; NULL when none of its challenges is flagged. #}
leaderboard_moves as (
    select
        challenge_actions.week_start,
        challenge_actions.item_cause_id,
        max(leaderboard_impacts.agents_moved_adjusted) as leaderboard_agents_moved,
        max(leaderboard_impacts.largest_move_adjusted) as leaderboard_largest_move
    from challenge_actions
    inner join leaderboard_impacts
        on challenge_actions.challenge_id = leaderboard_impacts.challenge_id
    group by challenge_actions.week_start, challenge_actions.item_cause_id
),

cause_summaries as (
    select
        week_start,
        item_cause_id as cause_id,
        max(scan_date) as scan_date,
        count(*) as findings,
        count(*) filter (where is_new) as new_findings,
        string_agg(distinct detector, ', ' order by detector) as detectors,
        string_agg(distinct model_family, ', ' order by model_family) as model_families,
        string_agg(distinct template_id, ', ' order by template_id) as template_ids,
        max(severity) as max_severity,
        min(q_value) as min_q_value,
        max(case when finding_rank = 1 then cause end) as cause,
        max(case when finding_rank = 1 then recommended_action end) as recommended_action,
        max(case when finding_rank = 1 then action_reason end) as action_reason,
        max(case when finding_rank = 1 then challenge_id end) as lead_challenge_id,
        max(case when finding_rank = 1 then detector end) as lead_detector,
        max(case when finding_rank = 1 then finding_id end) as lead_finding_id,
        max(case when finding_rank = 1 then model_family end) as lead_model_family,
        max(case when finding_rank = 1 then evidence end) as lead_evidence
    from ranked_findings
    group by week_start, item_cause_id
),

first_scans as (
    select
        cause_summaries.week_start,
        cause_summaries.cause_id,
        min(causes_keyed.scan_date) as first_scan_date
    from cause_summaries
    inner join causes_keyed
        on cause_summaries.cause_id = causes_keyed.item_cause_id
        and cause_summaries.scan_date >= causes_keyed.scan_date
    group by cause_summaries.week_start, cause_summaries.cause_id
),

{#- Harm = effect size x attempts affected. Effect size: the largest severity (|effect| /
    the detector's threshold) among the cause's findings, 1 (at the threshold) when none
    has one. Attempts affected: the scored attempts on the cause's challenges. Tiers first:
    1 a defect or bias established on the challenges' own evidence, 2 a platform-level
    trend (rewrite_challenge, watch), 3 a fix to confirm (confirm_fix), 4 an undecided
    verdict that needs more attempts (collect_attempts). #}
harm_measured as (
    select
        cause_summaries.*,
        challenge_lists.challenges,
        challenge_lists.challenge_ids,
        challenge_lists.challenge_actions,
        challenge_lists.flagged_challenges,
        case
            when challenge_lists.challenges > 1
                then 'decisive on ' || cause_summaries.lead_challenge_id || ': '
                    || cause_summaries.action_reason
            else cause_summaries.action_reason
        end as item_action_reason,
        challenge_lists.attempts_affected,
        coalesce(cause_summaries.max_severity, 1.0) * challenge_lists.attempts_affected
            as harm_score,
        case
            when cause_summaries.recommended_action = 'collect_attempts' then 4
            when cause_summaries.recommended_action = 'confirm_fix' then 3
            when cause_summaries.recommended_action in ('{{ trend_actions | join("', '") }}')  -- noqa: LT05
                then 2
            else 1
        end as priority_tier,
        first_scans.first_scan_date,
        leaderboard_moves.leaderboard_agents_moved,
        leaderboard_moves.leaderboard_largest_move
    from cause_summaries
    inner join challenge_lists
        on cause_summaries.week_start = challenge_lists.week_start
        and cause_summaries.cause_id = challenge_lists.item_cause_id
    inner join first_scans
        on cause_summaries.week_start = first_scans.week_start
        and cause_summaries.cause_id = first_scans.cause_id
    left join leaderboard_moves
        on cause_summaries.week_start = leaderboard_moves.week_start
        and cause_summaries.cause_id = leaderboard_moves.item_cause_id
),

prioritised as (
    select
        *,
        row_number() over (
            partition by week_start
            order by priority_tier, harm_score desc, min_q_value asc nulls last, cause_id
        ) as priority,
        week_start = max(week_start) over () as is_latest_week
    from harm_measured
)

select
    cast(week_start as date) as week_start,
    cast(cause_id as varchar) as cause_id,
    cast(priority as bigint) as priority,
    cast(cause as varchar) as cause,
    cast(recommended_action as varchar) as recommended_action,
    cast(item_action_reason as varchar) as action_reason,
    cast(challenges as bigint) as challenges,
    cast(challenge_ids as varchar) as challenge_ids,
    cast(challenge_actions as varchar) as challenge_actions,
    cast(detectors as varchar) as detectors,
    cast(findings as bigint) as findings,
    cast(lead_evidence as varchar) as lead_evidence,
    cast(lead_challenge_id as varchar) as lead_challenge_id,
    cast(lead_detector as varchar) as lead_detector,
    cast(lead_finding_id as varchar) as lead_finding_id,
    cast(lead_model_family as varchar) as lead_model_family,
    cast(model_families as varchar) as model_families,
    cast(template_ids as varchar) as template_ids,
    cast(flagged_challenges as bigint) as flagged_challenges,
    cast(flagged_challenges > 0 as boolean) as is_verdict_flagged,
    cast(max_severity as double) as max_severity,
    cast(min_q_value as double) as min_q_value,
    cast(attempts_affected as bigint) as attempts_affected,
    cast(harm_score as double) as harm_score,
    cast(leaderboard_agents_moved as bigint) as leaderboard_agents_moved,
    cast(leaderboard_largest_move as bigint) as leaderboard_largest_move,
    cast(
        case
            when leaderboard_agents_moved = 0 then 'moves no agent''s rank'
            when leaderboard_agents_moved is not null
                then 'moves ' || leaderboard_agents_moved || ' agent'
                    || case when leaderboard_agents_moved = 1 then '' else 's' end
                    || ', up to ' || leaderboard_largest_move || ' rank'
                    || case when leaderboard_largest_move = 1 then '' else 's' end
        end as varchar
    ) as leaderboard_impact,
    cast(priority_tier as bigint) as priority_tier,
    cast(new_findings as bigint) as new_findings,
    cast(scan_date as date) as scan_date,
    cast(first_scan_date as date) as first_scan_date,
    cast(is_latest_week as boolean) as is_latest_week
from prioritised
