{#
    Attempt grain, materialised as a view (see _remedies__models.yml): plain SQL over the
    staged attempts and the measured difficulties (no UDF, so the view also reads from a
    DuckDB file opened without the plugin), and a build does not write every attempt again.
#}
with

attempts as (
    select * from {{ ref('int_keyed__attempts') }}
),

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

difficulties as (
    select * from {{ ref('int_combination_difficulties_measured') }}
),

templated_attempts as (
    select
        attempts.attempt_id,
        attempts.challenge_id,
        challenges.template_id,
        challenges.variable_combination,
        attempts.agent_id,
        models.model_family,
        attempts.score
    from attempts
    inner join challenges
        on attempts.challenge_id = challenges.challenge_id
    inner join agents
        on attempts.agent_id = agents.agent_id
    inner join models
        on agents.model_id = models.model_id
    where attempts.is_scored
        and challenges.has_variables
        and challenges.template_id is not null
),

adjusted as (
    select
        templated_attempts.*,
        difficulties.difficulty as combination_difficulty,
        templated_attempts.score - difficulties.difficulty as adjusted_score,
        difficulties.difficulty is not null as is_adjusted,
        case
            when difficulties.difficulty is not null then 'adjusted'
            else coalesce(difficulties.status, 'no_scored_attempts')
        end as adjustment_status
    from templated_attempts
    left join difficulties
        on templated_attempts.template_id = difficulties.template_id
        and templated_attempts.variable_combination = difficulties.variable_combination
)

select
    cast(attempt_id as varchar) as attempt_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(variable_combination as varchar) as variable_combination,
    cast(agent_id as varchar) as agent_id,
    cast(model_family as varchar) as model_family,
    cast(score as double) as score,
    cast(combination_difficulty as double) as combination_difficulty,
    cast(adjusted_score as double) as adjusted_score,
    cast(is_adjusted as boolean) as is_adjusted,
    cast(adjustment_status as varchar) as adjustment_status
from adjusted
