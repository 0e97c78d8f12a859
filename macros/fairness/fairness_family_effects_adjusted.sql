{#
    One row per testable (partition..., challenge, model family) cell: the ability-adjusted
    family effect, from `cells` (fairness_family_cells_trimmed) and `abilities`
    (fairness_family_abilities_estimated). A query.

      adjusted score u_fc = trimmed_mean_fc - ability_f(-c)
      effect_fc = u_fc - mean of u_gc over the OTHER families g on the challenge

    i.e. how much better (or worse) the family does on this challenge than its ability
    elsewhere predicts, compared with how the other families do against theirs. The
    challenge's difficulty cancels; contrasting with the others (not with a mean that
    includes the family) keeps the full size of a shift. Its variance adds the cell's
    Yuen variance, the ability's variance, and the others' (over (K-1)^2); degrees of
    freedom by Welch-Satterthwaite over the cells' h - 1. The t test is two-sided, with
    p also Sidak-adjusted for the K contrasts of the challenge (a max-t test).
    Floating sums run in family order, so every build gives the same bits. The adjusted
    score, its variance, its Welch term and their sums over the challenge are returned
    too: on a flagged challenge, fairness_family_effects_flagged contrasts the other
    families again without the lead.
#}
{% macro fairness_family_effects_adjusted(cells, abilities, partition_by=[]) -%}
{%- set p = partition_by -%}
{%- set shrinkage_df = var('variance_shrinkage_df') | float -%}
{%- if shrinkage_df < 0 -%}
    {{ exceptions.raise_compiler_error("variance_shrinkage_df must be >= 0") }}
{%- endif %}
with

pooled as (
    {# the cells' winsorized variances s_w^2 = SS_w / (n - 1), pooled over the challenge's
       families with weights h - 1 (the prior of the shrinkage below) #}
    select
        {{ _partition_columns('cells', p) }}cells.challenge_id,
        sum(cells.trimmed_mean_variance * cells.effective_n * (cells.effective_n - 1)
                / (cells.attempts - 1) * (cells.effective_n - 1)
                order by cells.model_family)
            / sum(cells.effective_n - 1) as pooled_winsorized_variance,
        sum(cells.effective_n - 1) as pooled_degrees_of_freedom
    from {{ cells }} as cells
    where cells.trimmed_mean_variance is not null
    group by {{ _partition_columns('cells', p) }}cells.challenge_id
),

shrunk as (
    {# variance_shrinkage_df = d0 > 0: each cell's s_w^2 shrunk toward the pooled one,
       ((h - 1) s_w^2 + d0 pooled) / (h - 1 + d0), with h - 1 + d0 degrees of freedom
       (capped at the pooled ones); d0 = 0 keeps every cell's own Yuen variance #}
    select
        cells.*,
        case
            when {{ shrinkage_df }} > 0 then
                ((cells.effective_n - 1) * cells.trimmed_mean_variance * cells.effective_n
                    * (cells.effective_n - 1) / (cells.attempts - 1)
                    + {{ shrinkage_df }} * pooled.pooled_winsorized_variance)
                / (cells.effective_n - 1 + {{ shrinkage_df }})
                * (cells.attempts - 1) / (cells.effective_n * (cells.effective_n - 1))
            else cells.trimmed_mean_variance
        end as cell_variance,
        least(cells.effective_n - 1 + {{ shrinkage_df }}, pooled.pooled_degrees_of_freedom)
            as cell_degrees_of_freedom
    from {{ cells }} as cells
    inner join pooled
        on cells.challenge_id = pooled.challenge_id
        {{- _partition_join('cells', 'pooled', p) }}
    where cells.trimmed_mean_variance is not null
),

usable as (
    select
        {{ _partition_columns('cells', p) }}cells.challenge_id,
        cells.model_family,
        cells.attempts,
        cells.trimmed_mean,
        abilities.ability,
        cells.trimmed_mean - abilities.ability as adjusted_score,
        cells.cell_variance + abilities.ability_variance as adjusted_score_variance,
        cells.cell_variance * cells.cell_variance / cells.cell_degrees_of_freedom
            as welch_term
    from shrunk as cells
    inner join {{ abilities }} as abilities
        on cells.challenge_id = abilities.challenge_id
        and cells.model_family = abilities.model_family
        {{- _partition_join('cells', 'abilities', p) }}
    where abilities.ability is not null
        and abilities.ability_variance is not null
),

challenge_sums as (
    select
        {{ _partition_columns(none, p) }}challenge_id,
        count(*) as families,
        sum(adjusted_score order by model_family) as adjusted_score_sum,
        sum(adjusted_score_variance order by model_family) as variance_sum,
        sum(welch_term order by model_family) as welch_term_sum
    from usable
    group by {{ _partition_columns(none, p) }}challenge_id
),

contrasted as (
    select
        {{ _partition_columns('usable', p) }}usable.challenge_id,
        usable.model_family,
        usable.attempts,
        usable.trimmed_mean,
        usable.ability,
        challenge_sums.families as compared_families,
        usable.adjusted_score,
        usable.adjusted_score_variance,
        usable.welch_term,
        challenge_sums.adjusted_score_sum,
        challenge_sums.variance_sum,
        challenge_sums.welch_term_sum,
        {{ _family_contrast_columns(
            'usable.adjusted_score',
            'usable.adjusted_score_variance',
            'usable.welch_term',
            'challenge_sums.adjusted_score_sum - usable.adjusted_score',
            'challenge_sums.variance_sum - usable.adjusted_score_variance',
            'challenge_sums.welch_term_sum - usable.welch_term',
            'challenge_sums.families - 1',
        ) }}
    from usable
    inner join challenge_sums
        on usable.challenge_id = challenge_sums.challenge_id
        {{- _partition_join('usable', 'challenge_sums', p) }}
    where challenge_sums.families >= 2
),

tested as (
    select
        *,
        {{ _family_contrast_error() }}
    from contrasted
),

final as (
    select
        *,
        {{ contrast_test(
            'adjusted_deviation', 'standard_error', 'degrees_of_freedom',
            var('alpha'), 'compared_families'
        ) }} as test
    from tested
)

select
    {{ _partition_columns(none, p) }}challenge_id,
    model_family,
    attempts,
    trimmed_mean,
    ability,
    compared_families,
    adjusted_score,
    adjusted_score_variance,
    welch_term,
    adjusted_score_sum,
    variance_sum,
    welch_term_sum,
    adjusted_deviation,
    standard_error,
    degrees_of_freedom,
    test.t_statistic,
    test.p_value,
    test.p_value_sidak,
    test.ci_low,
    test.ci_high
from final
{%- endmacro %}
