{# One row: whether any challenge content is offered in two or more briefing styles. #}
with

contents_tested as (
    select * from {{ ref('int_briefing_style_contents_tested') }}
),

counted as (
    select
        count(*) as contents,
        count(*) filter (where status = 'tested') as tested_contents,
        coalesce(sum(attempts) filter (where status = 'tested'), 0) as attempts
    from contents_tested
),

covered as (
    select
        'briefing_style_sensitivity' as detector,
        contents > 0 as is_available,
        case
            when contents = 0 then 'no content offered in two briefing styles'
        end as missing_inputs,
        attempts as rows_analysed
    from counted
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
