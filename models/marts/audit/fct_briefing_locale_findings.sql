{%- set tag = var('competitive_challenge_tag') %}
{%- set context_characters = 40 %}
with

matched as (
    select * from {{ ref('int_briefing_locale_rules_matched') }}
),

rules as (
    select * from {{ ref(var('briefing_locale_rules_seed')) }}
),

reviews as (
    select * from {{ ref(var('briefing_finding_reviews_seed')) }}
),

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

unspecified_matches as (
    select *
    from matched
    where not is_specified
),

described as (
    select
        unspecified_matches.challenge_id,
        unspecified_matches.rule_id,
        rules.category,
        unspecified_matches.matched_text,
        unspecified_matches.match_position,
        unspecified_matches.match_index,
        substring(
            unspecified_matches.briefing_text,
            greatest(1, unspecified_matches.match_position - {{ context_characters }}),
            least(unspecified_matches.match_position - 1, {{ context_characters }})
                + length(unspecified_matches.matched_text) + {{ context_characters }}
        ) as context,
        rules.description as rule_description,
        rules.suggested_neutral_form,
        {{ tags_contain('challenges.tags', sql_string_literal(tag)) }} as is_competitive
    from unspecified_matches
    inner join rules
        on unspecified_matches.rule_id = rules.rule_id
    inner join challenges
        on unspecified_matches.challenge_id = challenges.challenge_id
),

reviewed as (
    select
        described.*,
        reviews.challenge_id is not null as is_reviewed,
        reviews.decision as review_decision,
        reviews.reviewed_by,
        reviews.note as review_note
    from described
    left join reviews
        on described.challenge_id = reviews.challenge_id
        and described.rule_id = reviews.rule_id
        and described.matched_text = reviews.matched_text
)

select
    cast(challenge_id || ':' || rule_id || ':' || match_position as varchar) as finding_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(rule_id as varchar) as rule_id,
    cast(category as varchar) as category,
    cast(matched_text as varchar) as matched_text,
    cast(match_position as bigint) as match_position,
    cast(match_index as bigint) as match_index,
    cast(context as varchar) as context,
    cast(rule_description as varchar) as rule_description,
    cast(suggested_neutral_form as varchar) as suggested_neutral_form,
    cast(is_competitive as boolean) as is_competitive,
    cast(is_reviewed as boolean) as is_reviewed,
    cast(review_decision as varchar) as review_decision,
    cast(reviewed_by as varchar) as reviewed_by,
    cast(review_note as varchar) as review_note,
    cast(is_competitive and not is_reviewed as boolean) as needs_review
from reviewed
