{%- set context_characters = 40 %}
with

briefings as (
    select * from {{ ref('stg_platform__challenge_briefings') }}
),

terms as (
    select * from {{ ref(var('briefing_domain_terms_seed')) }}
),

pairs as (
    select
        briefings.challenge_id,
        briefings.briefing_text,
        terms.term_id,
        terms.regex,
        terms.definition_regex
    from briefings
    cross join terms
),

mentions as (
    {{ regex_match_rows('pairs', ['challenge_id', 'term_id'], 'briefing_text', 'regex') }}
),

mentions_summarised as (
    select
        challenge_id,
        term_id,
        count(*) as mentions,
        arg_min(matched_text, match_index) as matched_text,
        min(match_position) as match_position
    from mentions
    group by challenge_id, term_id
),

judged as (
    select
        mentions_summarised.*,
        terms.domain,
        terms.description as term_description,
        substring(
            pairs.briefing_text,
            greatest(1, mentions_summarised.match_position - {{ context_characters }}),
            least(mentions_summarised.match_position - 1, {{ context_characters }})
                + length(mentions_summarised.matched_text) + {{ context_characters }}
        ) as context,
        coalesce(
            pairs.definition_regex is not null
            and {{ text_matches_pattern('pairs.briefing_text', 'pairs.definition_regex') }},
            false
        ) as is_defined
    from mentions_summarised
    inner join pairs
        on mentions_summarised.challenge_id = pairs.challenge_id
        and mentions_summarised.term_id = pairs.term_id
    inner join terms
        on mentions_summarised.term_id = terms.term_id
),

explained as (
    select
        *,
        case
            when is_defined then
                'the briefing states what ' || matched_text || ' requires'
            else
                'the briefing mentions ' || matched_text || ' (' || domain || ': '
                || term_description || ') ' || mentions || ' time(s) without stating what it'
                || ' requires: agents must bring outside domain knowledge'
        end as reason
    from judged
)

select
    cast(challenge_id || ':' || term_id as varchar) as finding_id,
    cast(challenge_id as varchar) as challenge_id,
    cast(term_id as varchar) as term_id,
    cast(domain as varchar) as domain,
    cast(matched_text as varchar) as matched_text,
    cast(match_position as bigint) as match_position,
    cast(mentions as bigint) as mentions,
    cast(context as varchar) as context,
    cast(term_description as varchar) as term_description,
    cast(is_defined as boolean) as is_defined,
    cast(not is_defined as boolean) as is_flagged,
    cast(reason as varchar) as reason
from explained
