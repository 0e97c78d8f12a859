{#
    One row per (experiment, arm, model family, distinct score) over the scored attempts of
    the challenges in an A/B experiment: arm 'A' (original) or 'B' (modified), read
    case-insensitively; challenges with another or no arm label are left out.
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where verdict_window = 'all'
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

counted as (
    select
        experiment_challenges.experiment_id,
        experiment_challenges.arm,
        score_counts.model_family,
        score_counts.score,
        sum(score_counts.attempts) as attempts
    from experiment_challenges
    inner join score_counts
        on experiment_challenges.challenge_id = score_counts.challenge_id
    where score_counts.score is not null
    group by
        experiment_challenges.experiment_id,
        experiment_challenges.arm,
        score_counts.model_family,
        score_counts.score
)

select * from counted
