with

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
    where verdict_window = 'all'
),

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

challenge_totals as (
    select
        challenge_id,
        sum(scored_attempts) as scored_attempts,
        {#- floating sums in a fixed order: the same bits on every build #}
        sum(score_sum order by model_family) as score_sum
    from family_summaries
    where scored_attempts > 0
    group by challenge_id
),

combinations as (
    select
        challenges.template_id,
        challenges.variable_combination,
        count(*) as challenges,
        sum(challenge_totals.scored_attempts) as attempts,
        sum(challenge_totals.score_sum order by challenge_totals.challenge_id)
        / sum(challenge_totals.scored_attempts) as mean_score
    from challenge_totals
    inner join challenges
        on challenge_totals.challenge_id = challenges.challenge_id
    where challenges.has_variables
        and challenges.template_id is not null
    group by challenges.template_id, challenges.variable_combination
),

compared as (
    select
        *,
        count(*) over template as template_combinations,
        avg(mean_score) over template as template_mean
    from combinations
    window template as (
        partition by template_id order by variable_combination
        rows between unbounded preceding and unbounded following
    )
),

{#- Decided and ranked on the deviation to 9 decimals: two combinations symmetric about
    the template mean tie, and an ulp of a float sum never pushes a deviation equal to the
    threshold over it. #}
ranked as (
    select
        *,
        mean_score - template_mean as deviation,
        round(abs(mean_score - template_mean), 9) > {{ var('combination_deviation_threshold') }}
            as is_flagged,
        rank() over (
            partition by template_id order by round(abs(mean_score - template_mean), 9) desc
        ) as difficulty_rank
    from compared
)

select
    cast(template_id as varchar) as template_id,
    cast(variable_combination as varchar) as variable_combination,
    cast(challenges as bigint) as challenges,
    cast(attempts as bigint) as attempts,
    cast(mean_score as double) as mean_score,
    cast(template_combinations as bigint) as template_combinations,
    cast(template_mean as double) as template_mean,
    cast(deviation as double) as deviation,
    cast(is_flagged as boolean) as is_flagged,
    cast(difficulty_rank as bigint) as difficulty_rank
from ranked
