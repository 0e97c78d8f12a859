{#
    One row per briefing with what the maintained libraries find in it: its locale findings
    (cf_briefing_locale_findings) and its rare terms (cf_briefing_jargon_terms), as found
    with `scanned_with` (macro briefing_scanner_version: the scanner's source digest, its
    libraries' and Python's versions, vars `briefing_jargon_max_zipf` and
    `briefing_jargon_acronym_max_zipf`).

    Incremental: a run scans only the briefings whose text or `scanned_with` differ from the
    stored row (a new challenge, an edited briefing, an upgrade, other thresholds), and the
    post-hook drops the rows of challenges that no longer have a briefing. The scans are most
    of the audits' cost (libphonenumber's matcher over 245 regions, about 25 ms a briefing
    with eight digits, and the library tables they need): a daily run whose briefings did
    not change scans none (fct_briefing_locale_findings may still build the holiday, unit
    and address tables to ask whether a seed rule's match is explained). Equal to a full
    refresh: each stored row is the scan of the text beside it with the scanner named
    beside it.
#}
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='challenge_id',
    on_schema_change='fail',
    post_hook="
        delete from {{ this }} as stored
        where not exists (
            select 1
            from {{ ref('stg_platform__challenges') }} as challenges
            where challenges.challenge_id = stored.challenge_id
                and challenges.briefing_text is not null
        )",
) }}
with

briefings as (
    select
        challenge_id,
        briefing_text,
        {{ briefing_scanner_version(
            var('briefing_jargon_max_zipf'), var('briefing_jargon_acronym_max_zipf')
        ) }} as scanned_with
    from {{ ref('stg_platform__challenges') }}
    where briefing_text is not null
),

to_scan as (
    select *
    from briefings
    {%- if is_incremental() %}
    where not exists (
            select 1
            from {{ this }} as stored
            where stored.challenge_id = briefings.challenge_id
                and stored.briefing_text = briefings.briefing_text
                and stored.scanned_with = briefings.scanned_with
        )
    {%- endif %}
)

select
    challenge_id,
    briefing_text,
    scanned_with,
    {{ briefing_locale_library_findings('briefing_text') }} as locale_findings,
    {{ briefing_jargon_terms(
        'briefing_text',
        var('briefing_jargon_max_zipf'),
        var('briefing_jargon_acronym_max_zipf')
    ) }} as jargon_terms
from to_scan
