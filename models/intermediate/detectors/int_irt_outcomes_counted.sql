{#
    IRT input: one row per (agent, challenge) with scored attempts, the attempts counted and
    the passes among them (score >= irt_pass_score). The attempts of one agent on one
    challenge are binomial given its ability, so these counts are all the 2PL fit needs.
#}
with

attempts as (
    select * from {{ ref('stg_platform__attempts') }}
),

counted as (
    select
        agent_id,
        challenge_id,
        count(*) as attempts,
        count(*) filter (where score >= {{ var('irt_pass_score') }}) as passes
    from attempts
    where is_scored
    group by agent_id, challenge_id
)

select * from counted
