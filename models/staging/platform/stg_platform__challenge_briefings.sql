{#
    One row per clean challenge with a briefing, from the optional column
    `challenges.briefing_text` (absent column, NULL or blank text: no row). The clean
    challenge's own raw row gives the text (a duplicate copy was rejected in staging).
#}
{{ scan_stage_config('view') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
with

source as (
    select * from {{ source_rows('challenges') }}
),

challenges as (
    select * from {{ ref('base_platform__challenges') }}
),

briefings as (
    select
        source.source_row_number,
        {{ optional_column('challenges', 'briefing_text', 'string') }} as briefing_text
    from source
),

renamed as (
    select
        challenges.challenge_id,
        briefings.briefing_text
    from briefings
    inner join challenges
        on briefings.source_row_number = challenges.source_row_number
    where challenges.rejection_reason is null
        and nullif(trim(briefings.briefing_text), '') is not null
)

select * from renamed
{%- endif %}
