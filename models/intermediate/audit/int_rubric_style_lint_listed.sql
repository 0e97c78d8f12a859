with

matches as (
    select * from {{ ref('int_rubric_style_matches') }}
),

rubric_items as (
    select * from {{ ref('int_keyed__rubric_items') }}
),

rules as (
    select * from {{ ref(var('rubric_style_rules_seed')) }}
),

described as (
    select
        matches.rubric_item_id,
        rubric_items.challenge_id,
        matches.rule_id,
        matches.matched_text,
        matches.match_position,
        rubric_items.description,
        rules.description as rule_description,
        rules.suggested_rewording
    from matches
    inner join rubric_items
        on matches.rubric_item_id = rubric_items.rubric_item_id
    inner join rules
        on matches.rule_id = rules.rule_id
)

select
    cast(rubric_item_id || ':' || rule_id || ':' || match_position as varchar) as finding_id,
    cast(rubric_item_id as varchar) as rubric_item_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(rule_id as varchar) as rule_id,
    cast(matched_text as varchar) as matched_text,
    cast(match_position as bigint) as match_position,
    cast(description as varchar) as description,
    cast(rule_description as varchar) as rule_description,
    cast(suggested_rewording as varchar) as suggested_rewording
from described
