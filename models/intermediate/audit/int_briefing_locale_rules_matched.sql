{#
    One row per match of a locale rule (seed `briefing_locale_rules`, or the seed named by
    var `briefing_locale_rules_seed`) in a challenge's briefing, with whether the rule's
    specification regex also matches that briefing (then the locale content is specified
    and the match is no finding). Set-based: briefings x rules, regexes in SQL.
#}
with

briefings as (
    select
        challenge_id,
        briefing_text
    from {{ ref('stg_platform__challenges') }}
    where briefing_text is not null
),

rules as (
    select * from {{ ref(var('briefing_locale_rules_seed')) }}
),

pairs as (
    select
        briefings.challenge_id,
        briefings.briefing_text,
        rules.rule_id,
        rules.regex,
        rules.specification_regex
    from briefings
    cross join rules
),

matches as (
    {{ regex_match_rows('pairs', ['challenge_id', 'rule_id'], 'briefing_text', 'regex') }}
),

specified as (
    select
        challenge_id,
        rule_id,
        briefing_text,
        coalesce(
            specification_regex is not null
            and {{ text_matches_pattern('briefing_text', 'specification_regex') }},
            false
        ) as is_specified
    from pairs
),

joined as (
    select
        matches.challenge_id,
        matches.rule_id,
        matches.match_index,
        matches.matched_text,
        matches.match_position,
        specified.is_specified,
        specified.briefing_text
    from matches
    inner join specified
        on matches.challenge_id = specified.challenge_id
        and matches.rule_id = specified.rule_id
)

select * from joined
