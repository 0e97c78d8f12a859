{#
    One row per match of a style-wording rule (seed `rubric_style_rules`, or the seed named
    by var `rubric_style_rules_seed`) in a rubric item's description. Set-based.
#}
with

rubric_items as (
    select * from {{ ref('int_keyed__rubric_items') }}
),

rules as (
    select * from {{ ref(var('rubric_style_rules_seed')) }}
),

pairs as (
    select
        rubric_items.rubric_item_id,
        rubric_items.description,
        rules.rule_id,
        rules.regex
    from rubric_items
    cross join rules
    where rubric_items.description is not null
),

matches as (
    {{ regex_match_rows('pairs', ['rubric_item_id', 'rule_id'], 'description', 'regex') }}
)

select * from matches
