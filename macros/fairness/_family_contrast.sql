{#
    Private helper of fairness_family_effects_adjusted and fairness_family_effects_flagged:
    one family's adjusted score against the mean over `others` other families, whose sums
    are given (the challenge's sums less the family's own, and less the lead's on a
    flagged challenge). Renders three select columns: adjusted_deviation, its variance
    (the family's plus the others' over others^2) and the Welch-Satterthwaite denominator
    (the family's term plus the others' over others^4).
#}
{% macro _family_contrast_columns(
    score, variance, welch_term, others_score_sum, others_variance_sum, others_welch_sum,
    others
) -%}
        {{ score }} - ({{ others_score_sum }}) / ({{ others }}) as adjusted_deviation,
        {{ variance }} + ({{ others_variance_sum }}) / power({{ others }}, 2)
            as adjusted_deviation_variance,
        {{ welch_term }} + ({{ others_welch_sum }}) / power({{ others }}, 4)
            as welch_denominator
{%- endmacro %}

{# standard_error and the Welch-Satterthwaite degrees_of_freedom of such a contrast #}
{% macro _family_contrast_error() -%}
        sqrt(adjusted_deviation_variance) as standard_error,
        case
            when welch_denominator > 0
                then adjusted_deviation_variance * adjusted_deviation_variance / welch_denominator
        end as degrees_of_freedom
{%- endmacro %}
