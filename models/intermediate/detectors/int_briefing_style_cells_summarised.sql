{#
    One row per (template, variable combination, briefing style, model family) for the
    challenge contents offered in two or more briefing styles: the family's scored
    attempts on the content in that style (pooled over the challenges that offer it),
    with their count, mean and within-cell sum of squared deviations (the sufficient
    statistics of the two-way family x style layout).
#}
with

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

family_summaries as (
    select * from {{ ref('int_challenge_families_summarised') }}
    where verdict_window = 'all'
),

styled_challenges as (
    select
        challenge_id,
        template_id,
        variable_combination,
        briefing_style
    from challenges
    where template_id is not null
        and briefing_style is not null
),

multi_style_contents as (
    select
        template_id,
        variable_combination
    from styled_challenges
    group by template_id, variable_combination
    having count(distinct briefing_style) >= 2
),

content_challenges as (
    select styled_challenges.*
    from styled_challenges
    inner join multi_style_contents
        on styled_challenges.template_id = multi_style_contents.template_id
        and styled_challenges.variable_combination = multi_style_contents.variable_combination
),

challenge_cells as (
    select
        content_challenges.challenge_id,
        content_challenges.template_id,
        content_challenges.variable_combination,
        content_challenges.briefing_style,
        family_summaries.model_family,
        family_summaries.scored_attempts,
        family_summaries.score_sum,
        family_summaries.mean_score,
        coalesce(family_summaries.variance_score * (family_summaries.scored_attempts - 1), 0)
            as within_ss
    from content_challenges
    inner join family_summaries
        on content_challenges.challenge_id = family_summaries.challenge_id
    where family_summaries.scored_attempts > 0
),

pooled_means as (
    select
        template_id,
        variable_combination,
        briefing_style,
        model_family,
        count(*) as challenges,
        sum(scored_attempts) as attempts,
        {#- floating sums in challenge order: the same bits on every build #}
        sum(score_sum order by challenge_id) / sum(scored_attempts) as mean_score
    from challenge_cells
    group by template_id, variable_combination, briefing_style, model_family
),

pooled_cells as (
    select
        pooled_means.template_id,
        pooled_means.variable_combination,
        pooled_means.briefing_style,
        pooled_means.model_family,
        pooled_means.challenges,
        pooled_means.attempts,
        pooled_means.mean_score,
        sum(
            challenge_cells.within_ss
            + challenge_cells.scored_attempts
            * power(challenge_cells.mean_score - pooled_means.mean_score, 2)
            order by challenge_cells.challenge_id
        ) as within_ss
    from pooled_means
    inner join challenge_cells
        on pooled_means.template_id = challenge_cells.template_id
        and pooled_means.variable_combination = challenge_cells.variable_combination
        and pooled_means.briefing_style = challenge_cells.briefing_style
        and pooled_means.model_family = challenge_cells.model_family
    group by
        pooled_means.template_id,
        pooled_means.variable_combination,
        pooled_means.briefing_style,
        pooled_means.model_family,
        pooled_means.challenges,
        pooled_means.attempts,
        pooled_means.mean_score
)

select * from pooled_cells
