{#
    One row per challenge content (template, variable combination) offered in two or more
    briefing styles: the F test of the family x style interaction on the analysed families
    (see int_briefing_style_family_effects), and the family whose effect changes most
    across styles (max over styles minus min over styles of its effect).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

family_effects as (
    select * from {{ ref('int_briefing_style_family_effects') }}
),

contents as (
    select
        template_id,
        variable_combination,
        count(distinct briefing_style) as styles
    from challenges
    where template_id is not null
        and briefing_style is not null
    group by template_id, variable_combination
    having count(distinct briefing_style) >= 2
),

interaction_tests as (
    select
        template_id,
        variable_combination,
        count(distinct model_family) as families,
        sum(attempts) as attempts,
        {{ style_interaction_test(
            'list(model_family order by model_family, briefing_style)',
            'list(briefing_style order by model_family, briefing_style)',
            'list(attempts order by model_family, briefing_style)',
            'list(mean_score order by model_family, briefing_style)',
            'list(within_ss order by model_family, briefing_style)'
        ) }} as test
    from family_effects
    group by template_id, variable_combination
),

family_changes as (
    select
        template_id,
        variable_combination,
        model_family,
        max(family_effect) - min(family_effect) as effect_change
    from family_effects
    group by template_id, variable_combination, model_family
),

ranked_changes as (
    select
        *,
        row_number() over (
            partition by template_id, variable_combination
            order by effect_change desc nulls last, model_family
        ) as change_rank
    from family_changes
),

tested as (
    select
        contents.template_id,
        contents.variable_combination,
        contents.styles,
        coalesce(interaction_tests.families, 0) as families,
        coalesce(interaction_tests.attempts, 0) as attempts,
        interaction_tests.test.f_statistic,
        interaction_tests.test.df_interaction,
        interaction_tests.test.df_residual,
        interaction_tests.test.p_value,
        case
            when coalesce(interaction_tests.families, 0) >= 2
                and interaction_tests.test.status = 'ok' then 'tested'
            else 'not_testable'
        end as status,
        case
            when coalesce(interaction_tests.families, 0) < 2
                then
                    'fewer than two families with at least {{ var("min_family_attempts") }}'
                    || ' scored attempts (min_family_attempts) in every style'
            when interaction_tests.test.status <> 'ok' then interaction_tests.test.reason
        end as reason,
        ranked_changes.model_family as most_affected_family,
        ranked_changes.effect_change as max_family_effect_change
    from contents
    left join interaction_tests
        on contents.template_id = interaction_tests.template_id
        and contents.variable_combination = interaction_tests.variable_combination
    left join ranked_changes
        on contents.template_id = ranked_changes.template_id
        and contents.variable_combination = ranked_changes.variable_combination
        and ranked_changes.change_rank = 1
        and ranked_changes.effect_change is not null
)

select * from tested
