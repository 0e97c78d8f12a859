{%- set threshold = var('approach_gap_threshold') %}
with

strata as (
    select * from {{ ref('int_approach_strata_summarised') }}
),

approach_totals as (
    select
        challenge_id,
        approach,
        sum(scored_attempts) as scored_attempts,
        {#- in family order: the same bits on every build #}
        sum(scored_attempts * mean_score order by model_family) / sum(scored_attempts)
            as mean_score
    from strata
    group by challenge_id, approach
),

approach_pairs as (
    select
        approach_a.challenge_id,
        approach_a.approach as approach_a,
        approach_b.approach as approach_b,
        approach_a.scored_attempts as attempts_a,
        approach_b.scored_attempts as attempts_b,
        approach_a.mean_score as mean_score_a,
        approach_b.mean_score as mean_score_b,
        approach_a.mean_score - approach_b.mean_score as naive_gap,
        row_number() over (
            order by approach_a.challenge_id, approach_a.approach, approach_b.approach
        ) as pair_number
    from approach_totals as approach_a
    inner join approach_totals as approach_b
        on approach_a.challenge_id = approach_b.challenge_id
        and approach_a.approach < approach_b.approach
),

stratum_lists as (
    select
        stratum_a.challenge_id,
        stratum_a.approach as approach_a,
        stratum_b.approach as approach_b,
        list(cast(stratum_a.scored_attempts as double) order by stratum_a.model_family) as n_a,
        list(stratum_a.mean_score order by stratum_a.model_family) as mean_a,
        list(stratum_a.variance_score order by stratum_a.model_family) as var_a,
        list(cast(stratum_b.scored_attempts as double) order by stratum_a.model_family) as n_b,
        list(stratum_b.mean_score order by stratum_a.model_family) as mean_b,
        list(stratum_b.variance_score order by stratum_a.model_family) as var_b
    from strata as stratum_a
    inner join strata as stratum_b
        on stratum_a.challenge_id = stratum_b.challenge_id
        and stratum_a.model_family = stratum_b.model_family
        and stratum_a.approach < stratum_b.approach
    group by stratum_a.challenge_id, stratum_a.approach, stratum_b.approach
),

compared as (
    select
        approach_pairs.*,
        {{ stratified_mean_difference(
            'coalesce(stratum_lists.n_a, cast([] as double[]))',
            'coalesce(stratum_lists.mean_a, cast([] as double[]))',
            'coalesce(stratum_lists.var_a, cast([] as double[]))',
            'coalesce(stratum_lists.n_b, cast([] as double[]))',
            'coalesce(stratum_lists.mean_b, cast([] as double[]))',
            'coalesce(stratum_lists.var_b, cast([] as double[]))',
            var('alpha')
        ) }} as gap_test
    from approach_pairs
    left join stratum_lists
        on approach_pairs.challenge_id = stratum_lists.challenge_id
        and approach_pairs.approach_a = stratum_lists.approach_a
        and approach_pairs.approach_b = stratum_lists.approach_b
),

q_values as (
    {{ benjamini_hochberg(
        '(select pair_number, gap_test.p_value as p_value from compared)',
        'pair_number',
        'p_value'
    ) }}
),

flagged as (
    select
        compared.*,
        q_values.q_value,
        coalesce(q_values.q_value < {{ var('alpha') }}, false) as is_significant,
        coalesce(
            q_values.q_value < {{ var('alpha') }}
            and abs(compared.gap_test.difference) > {{ threshold }},
            false
        ) as is_flagged
    from compared
    left join q_values
        on compared.pair_number = q_values.pair_number
)

select
    cast(challenge_id as varchar) as challenge_id,
    cast(approach_a as varchar) as approach_a,
    cast(approach_b as varchar) as approach_b,
    cast(attempts_a as bigint) as attempts_a,
    cast(attempts_b as bigint) as attempts_b,
    cast(mean_score_a as double) as mean_score_a,
    cast(mean_score_b as double) as mean_score_b,
    cast(naive_gap as double) as naive_gap,
    cast(gap_test.strata as bigint) as families_compared,
    cast(gap_test.attempts_a as bigint) as compared_attempts_a,
    cast(gap_test.attempts_b as bigint) as compared_attempts_b,
    cast(gap_test.difference as double) as stratified_gap,
    cast(gap_test.standard_error as double) as standard_error,
    cast(gap_test.degrees_of_freedom as double) as degrees_of_freedom,
    cast(gap_test.t_statistic as double) as t_statistic,
    cast(gap_test.p_value as double) as p_value,
    cast(q_value as double) as q_value,
    cast(gap_test.ci_low as double) as ci_low,
    cast(gap_test.ci_high as double) as ci_high,
    cast(1 - {{ var('alpha') }} as double) as interval_level,
    cast({{ threshold }} as double) as gap_threshold,
    cast(is_significant as boolean) as is_significant,
    cast(is_flagged as boolean) as is_flagged,
    cast(case when gap_test.status = 'ok' then 'tested' else 'not_testable' end as varchar)
        as status,
    cast(gap_test.reason as varchar) as reason
from flagged
