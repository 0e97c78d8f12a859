{#
    One row per (template, variable combination) of the templated challenges: the
    combination's measured difficulty in points, relative to its template.

    A combination's reference is the F2 fit's challenge reference (family-balanced and
    ability-adjusted: the mean over the families on the challenge of their trimmed mean
    minus their ability), averaged over the combination's challenges (one per briefing
    style or arm). Difficulty = reference - the mean of the template's measurable
    combination references (each combination counts once, like fct_combination_difficulty's
    template mean); negative = harder. Raw combination means are confounded when families of
    different skill attempt combinations at different rates; the reference is not.

    Variance: the reference of challenge c is a mean of K_c cell trimmed means (its
    fitted cells: a cell purification left out of the fit is not in it), so
    V_c = sum of the cells' Yuen variances / K_c^2 (family abilities are treated as known:
    they are fitted on every challenge and cancel exactly when the same families attempt
    every combination). For d_v = (1 - 1/m) r_v - (1/m) sum_{u != v} r_u over the template's
    m measurable combinations, Var(d_v) = (1 - 1/m)^2 V_v + (sum_u V_u - V_v) / m^2, with
    Welch-Satterthwaite degrees of freedom over the cells (each cell h - 1).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

abilities as (
    select * from {{ ref('int_family_abilities_estimated') }}
    where verdict_window = 'all'
),

cells as (
    select * from {{ ref('int_challenge_family_cells_trimmed') }}
    where verdict_window = 'all'
),

templated_challenges as (
    select
        challenge_id,
        template_id,
        variable_combination
    from challenges
    where has_variables
        and template_id is not null
),

{#- The reference's variance is over the cells it is a mean of: purification leaves a
    flagged family's cell out of its challenge's reference. #}
scored_cells as (
    select
        cells.challenge_id,
        cells.model_family,
        cells.attempts,
        cells.trimmed_mean_variance,
        cells.effective_n,
        abilities.challenge_reference,
        coalesce(abilities.is_in_challenge_reference, false) as is_in_reference
    from cells
    left join abilities
        on cells.challenge_id = abilities.challenge_id
        and cells.model_family = abilities.model_family
    where cells.trimmed_mean is not null
),

challenge_sums as (
    select
        challenge_id,
        count(*) as families,
        sum(attempts) as scored_attempts,
        {#- the same on every cell of the challenge in the fit, left out or not #}
        max(challenge_reference) as challenge_reference,
        count(*) filter (where is_in_reference) as reference_cells,
        count(*) filter (where is_in_reference and trimmed_mean_variance is null)
            as cells_without_variance,
        {#- floating sums in a fixed order (family, challenge, combination): the same bits
            on every build #}
        sum(case when is_in_reference then trimmed_mean_variance end order by model_family)
            as variance_sum,
        sum(
            case
                when is_in_reference
                    then trimmed_mean_variance * trimmed_mean_variance
                        / nullif(effective_n - 1, 0)
            end
            order by model_family
        ) as df_term_sum
    from scored_cells
    group by challenge_id
),

challenge_variances as (
    select
        challenge_id,
        challenge_reference,
        families,
        scored_attempts,
        cells_without_variance,
        variance_sum / (reference_cells * reference_cells) as reference_variance,
        df_term_sum / power(reference_cells, 4) as reference_df_term
    from challenge_sums
),

challenges_measured as (
    select
        templated_challenges.template_id,
        templated_challenges.variable_combination,
        templated_challenges.challenge_id,
        challenge_variances.challenge_reference,
        challenge_variances.families,
        challenge_variances.scored_attempts,
        challenge_variances.cells_without_variance,
        challenge_variances.reference_variance,
        challenge_variances.reference_df_term
    from templated_challenges
    left join challenge_variances
        on templated_challenges.challenge_id = challenge_variances.challenge_id
),

combinations_summarised as (
    select
        template_id,
        variable_combination,
        count(*) as challenges,
        count(challenge_reference) as measured_challenges,
        coalesce(sum(scored_attempts), 0) as scored_attempts,
        max(families) as families,
        coalesce(sum(cells_without_variance), 0) as cells_without_variance,
        avg(challenge_reference order by challenge_id) as combination_reference,
        sum(reference_variance order by challenge_id)
        / (count(challenge_reference) * count(challenge_reference)) as reference_variance,
        sum(reference_df_term order by challenge_id) / power(count(challenge_reference), 4)
            as reference_df_term
    from challenges_measured
    group by template_id, variable_combination
),

measurability_checked as (
    select
        *,
        case
            when measured_challenges = 0 then 'no_scored_attempts'
            when cells_without_variance > 0 then 'too_few_attempts'
            when not reference_variance > 0 then 'no_variation'
        end as unmeasurable_status
    from combinations_summarised
),

templates_summarised as (
    select
        template_id,
        count(*) as template_combinations,
        count(*) filter (where unmeasurable_status is null) as measured_combinations,
        avg(combination_reference order by variable_combination)
        filter (where unmeasurable_status is null) as template_reference,
        sum(reference_variance order by variable_combination)
        filter (where unmeasurable_status is null) as template_variance_sum,
        sum(reference_df_term order by variable_combination)
        filter (where unmeasurable_status is null) as template_df_term_sum
    from measurability_checked
    group by template_id
),

difficulties as (
    select
        measurability_checked.*,
        templates_summarised.template_combinations,
        templates_summarised.measured_combinations,
        templates_summarised.template_reference,
        case
            when measurability_checked.unmeasurable_status is not null
                then measurability_checked.unmeasurable_status
            when templates_summarised.measured_combinations < 2 then 'single_combination'
            else 'measured'
        end as status,
        templates_summarised.template_variance_sum,
        templates_summarised.template_df_term_sum
    from measurability_checked
    inner join templates_summarised
        on measurability_checked.template_id = templates_summarised.template_id
),

variances as (
    select
        *,
        case when status = 'measured' then combination_reference - template_reference end
            as difficulty,
        case
            when status = 'measured' then
                power(1 - 1.0 / measured_combinations, 2) * reference_variance
                + (template_variance_sum - reference_variance)
                / power(measured_combinations, 2)
        end as difficulty_variance,
        case
            when status = 'measured' then
                power(1 - 1.0 / measured_combinations, 4) * reference_df_term
                + (template_df_term_sum - reference_df_term) / power(measured_combinations, 4)
        end as difficulty_df_term
    from difficulties
),

tested as (
    select
        *,
        sqrt(difficulty_variance) as standard_error,
        difficulty_variance * difficulty_variance / nullif(difficulty_df_term, 0)
            as degrees_of_freedom
    from variances
),

intervals as (
    select
        *,
        {{ contrast_test('difficulty', 'standard_error', 'degrees_of_freedom', var('alpha'), 1) }}
            as difficulty_test
    from tested
)

select
    template_id,
    variable_combination,
    challenges,
    scored_attempts,
    families,
    template_combinations,
    measured_combinations,
    combination_reference,
    template_reference,
    difficulty,
    standard_error,
    degrees_of_freedom,
    difficulty_test.t_statistic,
    difficulty_test.p_value,
    difficulty_test.ci_low,
    difficulty_test.ci_high,
    reference_variance,
    reference_df_term,
    status,
    case status
        when 'measured' then null
        when 'no_scored_attempts' then 'no scored attempts on the combination'
        when 'too_few_attempts'
            then 'a family cell has fewer than two attempts left after trimming (no variance)'
        when 'no_variation' then 'the scores on the combination do not vary'
        when 'single_combination'
            then 'fewer than two measurable combinations in the template: nothing to compare with'
    end as reason
from intervals
