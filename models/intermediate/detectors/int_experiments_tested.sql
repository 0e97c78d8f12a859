{#
    One row per experiment_id: the three A/B criteria's statistics (arm B against arm A).
    Overall mean: all scored attempts of the arm (TOST, Welch). Cross-family variance of
    family means: the families with at least `min_family_attempts` scored attempts in both
    arms (bootstrap interval). Discrimination: the mean IRT 'a' of the arm's challenges,
    its standard error sqrt(sum se^2) / m (challenges' estimates taken as independent).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

arm_scores as (
    select * from {{ ref('int_experiment_arm_scores_counted') }}
),

irt_estimates as (
    select * from {{ ref('int_irt_parameters_estimated') }}
    where entity_kind = 'challenge'
),

irt_contrasts as (
    select * from {{ ref('int_irt_parameters_estimated') }}
    where entity_kind = 'contrast'
),

experiment_challenges as (
    select
        challenge_id,
        experiment_id,
        upper(trim(experiment_arm)) as arm
    from challenges
    where experiment_id is not null
),

experiments as (
    select
        experiment_id,
        string_agg(challenge_id, ', ' order by challenge_id) filter (where arm = 'A')
            as arm_a_challenges,
        string_agg(challenge_id, ', ' order by challenge_id) filter (where arm = 'B')
            as arm_b_challenges
    from experiment_challenges
    group by experiment_id
),

arm_means as (
    select
        experiment_id,
        arm,
        sum(attempts) as attempts,
        {#- floating sums in (family, score) order: the same bits on every build #}
        sum(score * attempts order by model_family, score) / sum(attempts) as mean_score
    from arm_scores
    group by experiment_id, arm
),

arm_moments as (
    select
        arm_means.experiment_id,
        arm_means.arm,
        arm_means.attempts,
        arm_means.mean_score,
        case
            when arm_means.attempts > 1 then
                sum(
                    arm_scores.attempts * power(arm_scores.score - arm_means.mean_score, 2)
                    order by arm_scores.model_family, arm_scores.score
                )
                / (arm_means.attempts - 1)
        end as variance_score
    from arm_means
    inner join arm_scores
        on arm_means.experiment_id = arm_scores.experiment_id
        and arm_means.arm = arm_scores.arm
    group by arm_means.experiment_id, arm_means.arm, arm_means.attempts, arm_means.mean_score
),

family_cells as (
    select
        experiment_id,
        model_family,
        sum(attempts) filter (where arm = 'A') as arm_a_attempts,
        sum(attempts) filter (where arm = 'B') as arm_b_attempts
    from arm_scores
    group by experiment_id, model_family
),

eligible_scores as (
    select arm_scores.*
    from arm_scores
    inner join family_cells
        on arm_scores.experiment_id = family_cells.experiment_id
        and arm_scores.model_family = family_cells.model_family
    where family_cells.arm_a_attempts >= {{ var('min_family_attempts') }}
        and family_cells.arm_b_attempts >= {{ var('min_family_attempts') }}
),

variance_tests as (
    select
        experiment_id,
        {{ variance_reduction(
            'experiment_id',
            'list(arm order by arm, model_family, score)',
            'list(model_family order by arm, model_family, score)',
            'list(score order by arm, model_family, score)',
            'list(attempts order by arm, model_family, score)',
            var('ab_bootstrap_resamples'),
            var('alpha'),
            var('ab_bootstrap_seed')
        ) }} as test
    from eligible_scores
    group by experiment_id
),

arm_discriminations as (
    select
        experiment_challenges.experiment_id,
        experiment_challenges.arm,
        count(*) as challenges,
        count(*) filter (where irt_estimates.fit_status = 'ok') as fitted_challenges,
        avg(irt_estimates.discrimination order by experiment_challenges.challenge_id)
            as discrimination
    from experiment_challenges
    left join irt_estimates
        on experiment_challenges.challenge_id = irt_estimates.entity_id
    where experiment_challenges.arm in ('A', 'B')
    group by experiment_challenges.experiment_id, experiment_challenges.arm
),

arm_statistics as (
    select
        experiments.experiment_id,
        experiments.arm_a_challenges,
        experiments.arm_b_challenges,
        coalesce(moments_a.attempts, 0) as arm_a_attempts,
        coalesce(moments_b.attempts, 0) as arm_b_attempts,
        moments_a.mean_score as arm_a_mean_score,
        moments_b.mean_score as arm_b_mean_score,
        moments_a.variance_score as arm_a_variance_score,
        moments_b.variance_score as arm_b_variance_score,
        variance_tests.test as variance_test,
        case when discrimination_a.fitted_challenges = discrimination_a.challenges
                then discrimination_a.discrimination
        end as arm_a_discrimination,
        case when discrimination_b.fitted_challenges = discrimination_b.challenges
                then discrimination_b.discrimination
        end as arm_b_discrimination,
        irt_contrasts.discrimination as discrimination_change,
        irt_contrasts.discrimination_se as discrimination_change_se,
        case
            when irt_contrasts.entity_id is null then 'an arm has no challenge'
            else irt_contrasts.fit_reason
        end as discrimination_missing_reason
    from experiments
    left join arm_moments as moments_a
        on experiments.experiment_id = moments_a.experiment_id
        and moments_a.arm = 'A'
    left join arm_moments as moments_b
        on experiments.experiment_id = moments_b.experiment_id
        and moments_b.arm = 'B'
    left join variance_tests
        on experiments.experiment_id = variance_tests.experiment_id
    left join arm_discriminations as discrimination_a
        on experiments.experiment_id = discrimination_a.experiment_id
        and discrimination_a.arm = 'A'
    left join arm_discriminations as discrimination_b
        on experiments.experiment_id = discrimination_b.experiment_id
        and discrimination_b.arm = 'B'
    left join irt_contrasts
        on experiments.experiment_id = irt_contrasts.entity_id
),

tested as (
    select
        *,
        {{ equivalence_test(
            'arm_a_attempts', 'arm_a_mean_score', 'arm_a_variance_score',
            'arm_b_attempts', 'arm_b_mean_score', 'arm_b_variance_score',
            var('ab_max_mean_change'), var('alpha')
        ) }} as mean_test
    from arm_statistics
),

discrimination_tested as (
    select
        *,
        {{ noninferiority_test(
            'discrimination_change', 'discrimination_change_se',
            var('ab_discrimination_margin'), var('alpha')
        ) }} as discrimination_test
    from tested
)

select * from discrimination_tested
