{#
    One row per measured (template, variable combination): its equivalence pool. Pools are
    the greedy 1-D cover of the template's measured difficulties from the easiest
    (cf_equivalence_pools): each pool spans at most `combination_equivalence_tolerance`
    points, and no grouping of the same combinations needs fewer pools. Per member, a TOST
    (cf_equivalence_to_centre) that its difficulty lies within +-tolerance of the pool
    centre (the mean of the members' difficulties) at level alpha. (A margin of
    tolerance/2 would make the claim pairwise, but a greedy pool's extremes lie up to
    tolerance/2 or more from its mean by construction, so it could rarely be shown.)
    The member's difference
    from the centre is r_i - mean over the pool of r_j (the template mean cancels), so
    Var = (1 - 1/p)^2 V_i + (sum_pool V_j - V_i) / p^2 with Welch-Satterthwaite df.
#}
{%- set tolerance = challenge_fairness.validated_var('combination_equivalence_tolerance') %}
{%- if tolerance is none or tolerance | float < 0 -%}
    {{ exceptions.raise_compiler_error("combination_equivalence_tolerance must be >= 0 points") }}
{%- endif %}
with

difficulties as (
    select * from {{ ref('int_combination_difficulties_measured') }}
    where status = 'measured'
),

template_lists as (
    select
        template_id,
        list(variable_combination order by difficulty desc, variable_combination)
            as combinations,
        list(difficulty order by difficulty desc, variable_combination) as difficulty_list
    from difficulties
    group by template_id
),

pooled as (
    select
        template_id,
        combinations,
        {{ equivalence_pools('difficulty_list', tolerance) }} as pool_numbers
    from template_lists
),

members as (
    select
        template_id,
        unnest(combinations) as variable_combination,
        unnest(pool_numbers) as pool_number
    from pooled
),

pool_members as (
    select
        difficulties.*,
        members.pool_number,
        count(*) over pool_window as pool_size,
        avg(difficulties.difficulty) over pool_window as pool_centre,
        min(difficulties.difficulty) over pool_window as pool_min_difficulty,
        max(difficulties.difficulty) over pool_window as pool_max_difficulty,
        sum(difficulties.reference_variance) over pool_window as pool_variance_sum,
        sum(difficulties.reference_df_term) over pool_window as pool_df_term_sum
    from difficulties
    inner join members
        on difficulties.template_id = members.template_id
        and difficulties.variable_combination = members.variable_combination
    {#- ordered, with the whole pool as the frame: floating sums in the same order on every
        build #}
    window pool_window as (
        partition by difficulties.template_id, members.pool_number
        order by difficulties.variable_combination
        rows between unbounded preceding and unbounded following
    )
),

differences as (
    select
        *,
        difficulty - pool_centre as difference_from_centre,
        power(1 - 1.0 / pool_size, 2) * reference_variance
        + (pool_variance_sum - reference_variance) / power(pool_size, 2)
            as difference_variance,
        power(1 - 1.0 / pool_size, 4) * reference_df_term
        + (pool_df_term_sum - reference_df_term) / power(pool_size, 4)
            as difference_df_term
    from pool_members
),

member_tests as (
    select
        *,
        sqrt(difference_variance) as difference_standard_error,
        difference_variance * difference_variance / nullif(difference_df_term, 0)
            as difference_degrees_of_freedom
    from differences
),

tested as (
    select
        *,
        case
            when pool_size >= 2 then
                {{ equivalence_to_centre(
                    'difference_from_centre',
                    'difference_standard_error',
                    'difference_degrees_of_freedom',
                    tolerance,
                    var('alpha')
                ) }}
        end as equivalence
    from member_tests
),

decided as (
    select
        *,
        pool_size >= 2 and coalesce(equivalence.p_value < {{ var('alpha') }}, false)
            as is_member_equivalent
    from tested
),

pools_decided as (
    select
        *,
        pool_size >= 2
        and bool_and(is_member_equivalent) over (partition by template_id, pool_number)
            as is_pool_equivalent
    from decided
),

recommended as (
    select
        *,
        case
            when is_pool_equivalent then
                {# centres equal to 1e-9 tie (two pools symmetric about the template
                   mean are common), so the last bits of a float sum never decide #}
                dense_rank() over (
                    partition by template_id, is_pool_equivalent
                    order by pool_size desc, round(abs(pool_centre), 9), pool_number
                )
        end as equivalent_pool_rank
    from pools_decided
)

select
    template_id,
    variable_combination,
    pool_number,
    pool_size,
    difficulty,
    ci_low,
    ci_high,
    pool_centre,
    pool_min_difficulty,
    pool_max_difficulty,
    cast({{ tolerance }} as double) as tolerance,
    cast({{ tolerance }} as double) as equivalence_margin,
    difference_from_centre,
    case when pool_size >= 2 then difference_standard_error end as difference_standard_error,
    case when pool_size >= 2 then difference_degrees_of_freedom end
        as difference_degrees_of_freedom,
    equivalence.ci_low as difference_ci_low,
    equivalence.ci_high as difference_ci_high,
    equivalence.p_value as tost_p_value,
    is_member_equivalent,
    is_pool_equivalent,
    coalesce(equivalent_pool_rank = 1, false) as is_recommended_pool
from recommended
