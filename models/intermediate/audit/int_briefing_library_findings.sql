{#
    One row per locale finding the maintained libraries make in a briefing
    (int_briefing_texts_scanned: the UDF cf_briefing_locale_findings of
    detectors/briefing_text.py: CLDR currency symbols, libphonenumber, CLDR date orders,
    pint's units, the holidays library, python-stdnum's identifiers, Google's address
    metadata, unstated customary rules), each span not explained by the briefing, after the
    overrides seed (var `briefing_audit_overrides_seed`): 'silence' drops it, 'reword'
    replaces its description and suggested neutral form.
#}
with

overrides as (
    select * from {{ ref(var('briefing_audit_overrides_seed')) }}
),

scanned as (
    select
        challenge_id,
        briefing_text,
        unnest(locale_findings) as finding
    from {{ ref('int_briefing_texts_scanned') }}
),

unnested as (
    select
        challenge_id,
        briefing_text,
        finding.rule_id,
        finding.category,
        finding.source,
        finding.matched_text,
        finding.match_position,
        finding.description,
        finding.suggested_neutral_form
    from scanned
),

{#- the override that applies to a finding: one for its exact text first, else the rule's #}
overridden as (
    select
        unnested.*,
        overrides.action,
        overrides.description as override_description,
        overrides.suggested_neutral_form as override_neutral_form,
        row_number() over (
            partition by unnested.challenge_id, unnested.rule_id, unnested.match_position
            order by coalesce(overrides.matched_text, '') = ''
        ) as override_rank
    from unnested
    left join overrides
        on unnested.rule_id = overrides.rule_id
        and (
            coalesce(overrides.matched_text, '') = ''
            or lower(overrides.matched_text) = lower(unnested.matched_text)
        )
),

kept as (
    select
        challenge_id,
        briefing_text,
        rule_id,
        category,
        source,
        matched_text,
        match_position,
        case
            when action = 'reword' and coalesce(override_description, '') <> ''
                then override_description
            else description
        end as description,
        case
            when action = 'reword' and coalesce(override_neutral_form, '') <> ''
                then override_neutral_form
            else suggested_neutral_form
        end as suggested_neutral_form
    from overridden
    where override_rank = 1
        and coalesce(action, '') <> 'silence'
)

select * from kept
