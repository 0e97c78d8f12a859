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

library_findings as (
    select * from {{ ref('int_briefing_library_findings') }}
),

unspecified_matches as (
    select *
    from matched
    where not is_specified
),

seed_findings as (
    select
        unspecified_matches.challenge_id,
        unspecified_matches.briefing_text,
        unspecified_matches.rule_id,
        rules.category,
        'seed_rule' as source,
        unspecified_matches.matched_text,
        unspecified_matches.match_position,
        unspecified_matches.match_index,
        rules.description as rule_description,
        rules.suggested_neutral_form
    from unspecified_matches
    inner join rules
        on unspecified_matches.rule_id = rules.rule_id
    where not coalesce({{ briefing_span_explained(
        'unspecified_matches.briefing_text', 'rules.category',
        'unspecified_matches.match_position', 'unspecified_matches.matched_text'
    ) }}, false)
),

{#- a library finding overlapped by a seed rule's finding is that finding (seed rules
    override the libraries: their own wording, specification and reviews) #}
library_only as (
    select
        library_findings.challenge_id,
        library_findings.briefing_text,
        library_findings.rule_id,
        library_findings.category,
        library_findings.source,
        library_findings.matched_text,
        library_findings.match_position,
        row_number() over (
            partition by library_findings.challenge_id, library_findings.rule_id
            order by library_findings.match_position
        ) as match_index,
        library_findings.description as rule_description,
        library_findings.suggested_neutral_form
    from library_findings
    where not exists (
            select 1
            from unspecified_matches
            where unspecified_matches.challenge_id = library_findings.challenge_id
                and unspecified_matches.match_position
                < library_findings.match_position + length(library_findings.matched_text)
                and library_findings.match_position
                < unspecified_matches.match_position + length(unspecified_matches.matched_text)
        )
),

findings_unioned as (
    select * from seed_findings
    union all
    select * from library_only
),

described as (
    select
        findings_unioned.challenge_id,
        findings_unioned.rule_id,
        findings_unioned.category,
        findings_unioned.source,
        findings_unioned.matched_text,
        findings_unioned.match_position,
        findings_unioned.match_index,
        substring(
            findings_unioned.briefing_text,
            greatest(1, findings_unioned.match_position - {{ context_characters }}),
            least(findings_unioned.match_position - 1, {{ context_characters }})
            + length(findings_unioned.matched_text) + {{ context_characters }}
        ) as context,
        findings_unioned.rule_description,
        findings_unioned.suggested_neutral_form,
        {{ tags_contain('challenges.tags', sql_string_literal(tag)) }} as is_competitive
    from findings_unioned
    inner join challenges
        on findings_unioned.challenge_id = challenges.challenge_id
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
    cast(source as varchar) as source,
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
