{%- set context_characters = 40 %}
with

briefings as (
    select
        challenge_id,
        briefing_text
    from {{ ref('stg_platform__challenges') }}
    where briefing_text is not null
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
        ) or coalesce(
            {{ briefing_term_defined('pairs.briefing_text', 'mentions_summarised.matched_text') }},
            false
        ) as is_defined
    from mentions_summarised
    inner join pairs
        on mentions_summarised.challenge_id = pairs.challenge_id
        and mentions_summarised.term_id = pairs.term_id
    inner join terms
        on mentions_summarised.term_id = terms.term_id
),

jargon as (
    select * from {{ ref('int_briefing_jargon_listed') }}
),

{#- the spans the locale audit reports (seed rule matches, library findings) #}
locale_spans as (
    select
        challenge_id,
        match_position,
        matched_text
    from {{ ref('int_briefing_locale_rules_matched') }}
    union all
    select
        challenge_id,
        match_position,
        matched_text
    from {{ ref('int_briefing_library_findings') }}
),

{#- rare terms that are no curated term of the same briefing (the curated finding stands)
    and no locale finding (an identifier, a holiday: reported once, by the locale audit) #}
jargon_only as (
    select
        jargon.challenge_id,
        'jargon:' || lower(jargon.term) as term_id,
        'unexplained_jargon' as domain,
        jargon.term as matched_text,
        jargon.match_position,
        jargon.mentions,
        substring(
            jargon.briefing_text,
            greatest(1, jargon.match_position - {{ context_characters }}),
            least(jargon.match_position - 1, {{ context_characters }})
            + length(jargon.term) + {{ context_characters }}
        ) as context,
        coalesce(
            jargon.override_description,
            case when jargon.is_acronym then 'acronym' else 'term' end
            || ' rare in general English (Zipf frequency '
            || {{ format_number('jargon.zipf_frequency', '%.2f') }}
            || ', below '
            || case
                when jargon.is_acronym then '{{ var("briefing_jargon_acronym_max_zipf") }}'
                else '{{ var("briefing_jargon_max_zipf") }}'
            end
            || ')'
        ) as term_description,
        jargon.is_defined,
        'word_frequency' as term_source,
        jargon.zipf_frequency
    from jargon
    where not exists (
            select 1
            from mentions
            where mentions.challenge_id = jargon.challenge_id
                and (
                    lower(mentions.matched_text) = lower(jargon.term)
                    or (
                        mentions.match_position < jargon.match_position + length(jargon.term)
                        and jargon.match_position
                        < mentions.match_position + length(mentions.matched_text)
                    )
                )
        )
        and not exists (
            select 1
            from locale_spans
            where locale_spans.challenge_id = jargon.challenge_id
                and locale_spans.match_position < jargon.match_position + length(jargon.term)
                and jargon.match_position
                < locale_spans.match_position + length(locale_spans.matched_text)
        )
),

curated_and_jargon as (
    select
        challenge_id,
        term_id,
        domain,
        matched_text,
        match_position,
        mentions,
        context,
        term_description,
        is_defined,
        'curated' as term_source,
        cast(null as double) as zipf_frequency
    from judged
    union all
    select
        challenge_id,
        term_id,
        domain,
        matched_text,
        match_position,
        mentions,
        context,
        term_description,
        is_defined,
        term_source,
        zipf_frequency
    from jargon_only
),

explained as (
    select
        *,
        case when term_source = 'curated' then 'high' else 'candidate' end as severity,
        case
            when term_source = 'word_frequency' then row_number() over (
                    partition by challenge_id, term_source
                    order by zipf_frequency, match_position
                )
        end as rarity_rank,
        case
            when is_defined
                then
                    'the briefing states what ' || matched_text
                    || case when term_source = 'curated' then ' requires' else ' means' end
            else
                'the briefing mentions ' || matched_text || ' (' || domain || ': '
                || term_description || ') ' || mentions || ' time(s) without stating what it'
                || case
                    when term_source = 'curated' then ' requires'
                    else ' means'
                end
                || ': agents must bring outside domain knowledge'
        end as reason
    from curated_and_jargon
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
    cast(reason as varchar) as reason,
    cast(term_source as varchar) as term_source,
    cast(severity as varchar) as severity,
    cast(zipf_frequency as double) as zipf_frequency,
    cast(rarity_rank as bigint) as rarity_rank
from explained
