with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where verdict_window = 'all'
        and score is not null
),

score_lists as (
    select
        challenge_id,
        sum(attempts) as attempts,
        count(distinct model_family) as families,
        list(model_family order by model_family, score) as families_list,
        list(score order by model_family, score) as scores_list,
        list(attempts order by model_family, score) as counts_list
    from score_counts
    group by challenge_id
),

tested as (
    select
        challenges.challenge_id,
        coalesce(score_lists.attempts, 0) as attempts,
        coalesce(score_lists.families, 0) as families,
        {{ kruskal_wallis(
            'score_lists.families_list', 'score_lists.scores_list', 'score_lists.counts_list'
        ) }} as kruskal_wallis
    from challenges
    left join score_lists
        on challenges.challenge_id = score_lists.challenge_id
),

judged as (
    select
        challenge_id,
        attempts,
        families,
        kruskal_wallis.h_statistic,
        kruskal_wallis.p_value,
        case
            when attempts < {{ var('min_attempts') }} then 'insufficient_evidence'
            when (kruskal_wallis.status is distinct from 'ok') then 'not_testable'
            else 'tested'
        end as status,
        concat_ws(
            '; ',
            case
                when attempts < {{ var('min_attempts') }}
                    then attempts || ' scored attempts, fewer than min_attempts = '
                        || {{ var('min_attempts') }}
            end,
            case
                when attempts = 0 then 'no scored attempts'
                when (kruskal_wallis.status is distinct from 'ok')
                    then 'H not computable: ' || kruskal_wallis.reason
            end
        ) as reason
    from tested
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(attempts as bigint) as attempts,
    cast(families as bigint) as families,
    cast(h_statistic as double) as h_statistic,
    cast(p_value as double) as p_value,
    cast(status as varchar) as status,
    cast(nullif(reason, '') as varchar) as reason
from judged
