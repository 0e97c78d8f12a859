{#
    One row per rare term of a briefing (int_briefing_texts_scanned: the UDF
    cf_briefing_jargon_terms of detectors/briefing_text.py): words rarer than var
    `briefing_jargon_max_zipf` and acronyms rarer than var `briefing_jargon_acronym_max_zipf`
    in English (wordfreq Zipf frequency), runs of them as one multi-word term, with whether
    the briefing defines the term; the overrides seed (var `briefing_audit_overrides_seed`,
    rule_id `jargon`) silences a term or rewords its description.
#}
with

overrides as (
    select * from {{ ref(var('briefing_audit_overrides_seed')) }}
    where rule_id = 'jargon'
),

scanned as (
    select
        challenge_id,
        briefing_text,
        unnest(jargon_terms) as found
    from {{ ref('int_briefing_texts_scanned') }}
),

unnested as (
    select
        challenge_id,
        briefing_text,
        found.term,
        found.match_position,
        found.mentions,
        found.zipf_frequency,
        found.is_acronym,
        found.is_defined
    from scanned
),

overridden as (
    select
        unnested.*,
        overrides.action,
        overrides.description as override_description,
        row_number() over (
            partition by unnested.challenge_id, lower(unnested.term)
            order by coalesce(overrides.matched_text, '') = ''
        ) as override_rank
    from unnested
    left join overrides
        on coalesce(overrides.matched_text, '') = ''
        or lower(overrides.matched_text) = lower(unnested.term)
),

kept as (
    select
        challenge_id,
        briefing_text,
        term,
        match_position,
        mentions,
        zipf_frequency,
        is_acronym,
        is_defined,
        case
            when action = 'reword' and coalesce(override_description, '') <> ''
                then override_description
        end as override_description
    from overridden
    where override_rank = 1
        and coalesce(action, '') <> 'silence'
)

select * from kept
