with

source as (
    select * from {{ ref('base_platform__challenges') }}
),

renamed as (
    select
        challenge_id,
        template_id,
        variable_combination,
        variable_combination <> '{}' as has_variables,
        briefing_style,
        experiment_id,
        experiment_arm,
        tags,
        case when nullif(trim(briefing_text), '') is not null then briefing_text end
            as briefing_text
    from source
    where rejection_reason is null
)

select * from renamed
