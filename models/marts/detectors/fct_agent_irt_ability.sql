with

agents as (
    select * from {{ ref('int_keyed__agents') }}
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

estimates as (
    select * from {{ ref('int_irt_parameters_estimated') }}
    where entity_kind = 'agent'
),

estimated_abilities as (
    select
        agents.agent_id,
        agents.model_id,
        models.model_family,
        coalesce(estimates.attempts, 0) as attempts,
        coalesce(estimates.passes, 0) as passes,
        coalesce(estimates.counterparts, 0) as challenges,
        estimates.ability,
        estimates.ability_se,
        coalesce(estimates.fit_status, 'not_estimable') as fit_status,
        case
            when estimates.entity_id is null then 'no scored attempts'
            else estimates.fit_reason
        end as fit_reason
    from agents
    inner join models
        on agents.model_id = models.model_id
    left join estimates
        on agents.agent_id = estimates.entity_id
)

select
    cast(agent_id as varchar) as agent_id,
    cast(model_id as varchar) as model_id,
    cast(model_family as varchar) as model_family,
    cast(attempts as bigint) as attempts,
    cast(passes as bigint) as passes,
    cast(challenges as bigint) as challenges,
    cast(ability as double) as ability,
    cast(ability_se as double) as ability_se,
    cast(fit_status as varchar) as fit_status,
    cast(fit_reason as varchar) as fit_reason
from estimated_abilities
