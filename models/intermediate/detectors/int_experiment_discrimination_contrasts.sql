{#
    One row per (experiment, challenge) of the experiments with challenges in both arms:
    the weight of the challenge's IRT discrimination in the contrast "mean a of arm B
    minus mean a of arm A" (+1/m_B for each of arm B's m_B challenges, -1/m_A for arm A's).
    The IRT fit evaluates the contrast with the joint covariance of the estimates.
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

experiment_challenges as (
    select
        challenge_id,
        experiment_id,
        upper(trim(experiment_arm)) as arm
    from challenges
    where experiment_id is not null
        and upper(trim(experiment_arm)) in ('A', 'B')
),

arm_sizes as (
    select
        experiment_id,
        count(*) filter (where arm = 'A') as arm_a_challenges,
        count(*) filter (where arm = 'B') as arm_b_challenges
    from experiment_challenges
    group by experiment_id
),

weighted as (
    select
        experiment_challenges.experiment_id as contrast_id,
        experiment_challenges.challenge_id,
        case
            when experiment_challenges.arm = 'B' then 1.0 / arm_sizes.arm_b_challenges
            else -1.0 / arm_sizes.arm_a_challenges
        end as weight
    from experiment_challenges
    inner join arm_sizes
        on experiment_challenges.experiment_id = arm_sizes.experiment_id
    where arm_sizes.arm_a_challenges > 0
        and arm_sizes.arm_b_challenges > 0
)

select * from weighted
