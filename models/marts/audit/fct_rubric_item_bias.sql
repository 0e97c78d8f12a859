with

rubric_items as (
    select * from {{ ref('int_keyed__rubric_items') }}
),

rubric_scores as (
    select * from {{ ref('int_keyed__rubric_scores') }}
),

dif_tested as (
    select * from {{ ref('int_rubric_item_dif_tested') }}
),

family_dif as (
    select * from {{ ref('int_rubric_item_family_dif') }}
),

style_lint as (
    select * from {{ ref('int_rubric_style_lint_listed') }}
),

scores_counted as (
    select
        rubric_scores.rubric_item_id,
        count(*) filter (where rubric_scores.attempt_score is not null) as results,
        count(*) filter (where rubric_scores.attempt_score is null) as unscored_results
    from rubric_scores
    group by rubric_scores.rubric_item_id
),

earned_counted as (
    select
        rubric_item_id,
        sum(earned) as earned
    from family_dif
    group by rubric_item_id
),

family_summaries as (
    {{ dif_item_summaries('family_dif', 'rubric_item_id', 'earns') }}
),

style_summaries as (
    select
        rubric_item_id,
        string_agg(distinct rule_id, ', ' order by rule_id) as style_rule_ids,
        string_agg(rule_id || ': "' || matched_text || '"', '; ' order by match_position, rule_id)
            as style_matches,
        string_agg(distinct suggested_rewording, '; ' order by suggested_rewording)
            as suggested_rewording
    from style_lint
    group by rubric_item_id
),

judged as (
    select
        rubric_items.rubric_item_id,
        rubric_items.challenge_id,
        rubric_items.description,
        rubric_items.max_points,
        coalesce(scores_counted.results, 0) as results,
        coalesce(scores_counted.unscored_results, 0) as unscored_results,
        earned_counted.earned / nullif(scores_counted.results, 0) as earned_rate,
        coalesce(family_summaries.families, 0) as families,
        coalesce(dif_tested.families_tested, 0) as families_tested,
        coalesce(dif_tested.informative_bands, 0) as informative_bands,
        dif_tested.gcmh_statistic,
        dif_tested.gcmh_df,
        dif_tested.gcmh_p_value,
        dif_tested.gcmh_q_value,
        family_summaries.largest_ets_class,
        coalesce(family_summaries.large_dif_families, 0) as large_dif_families,
        family_summaries.lead_family,
        family_summaries.lead_d_dif,
        family_summaries.lead_d_dif_se,
        family_summaries.lead_ets_class,
        style_summaries.style_rule_ids,
        style_summaries.style_matches,
        style_summaries.suggested_rewording,
        {{ dif_item_verdict() }} as verdict,
        {{ dif_item_verdict_reason(
            'earn',
            'check whether it rewards a style rather than behaviour',
            "coalesce(' (style wording: ' || style_summaries.style_matches || ')', '')"
        ) }} as reason
    from rubric_items
    left join scores_counted
        on rubric_items.rubric_item_id = scores_counted.rubric_item_id
    left join earned_counted
        on rubric_items.rubric_item_id = earned_counted.rubric_item_id
    left join dif_tested
        on rubric_items.rubric_item_id = dif_tested.rubric_item_id
    left join family_summaries
        on rubric_items.rubric_item_id = family_summaries.rubric_item_id
    left join style_summaries
        on rubric_items.rubric_item_id = style_summaries.rubric_item_id
    {# built only when rubric scores exist: rubric items alone are linted in fct_rubric_style_lint #}
    where {{ 'true' if source_table_exists('rubric_scores') else 'false' }}
)

select
    cast(rubric_item_id as varchar) as rubric_item_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(description as varchar) as description,
    cast(max_points as double) as max_points,
    cast(verdict as varchar) as verdict,
    cast(verdict = 'review_recommended' as boolean) as is_flagged,
    cast(reason as varchar) as reason,
    cast(style_rule_ids is not null as boolean) as has_style_wording,
    cast(style_rule_ids as varchar) as style_rule_ids,
    cast(style_matches as varchar) as style_matches,
    cast(suggested_rewording as varchar) as suggested_rewording,
    cast(results as bigint) as results,
    cast(unscored_results as bigint) as unscored_results,
    cast(earned_rate as double) as earned_rate,
    cast(families as bigint) as families,
    cast(families_tested as bigint) as families_tested,
    cast(informative_bands as bigint) as informative_bands,
    cast(gcmh_statistic as double) as gcmh_statistic,
    cast(gcmh_df as bigint) as gcmh_df,
    cast(gcmh_p_value as double) as gcmh_p_value,
    cast(gcmh_q_value as double) as gcmh_q_value,
    cast(largest_ets_class as varchar) as largest_ets_class,
    cast(large_dif_families as bigint) as large_dif_families,
    cast(lead_family as varchar) as lead_family,
    cast(lead_d_dif as double) as lead_d_dif,
    cast(lead_d_dif_se as double) as lead_d_dif_se,
    cast(lead_ets_class as varchar) as lead_ets_class
from judged
