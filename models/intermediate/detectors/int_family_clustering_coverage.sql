{# One row: whether family clustering could be computed (two or more families, enough
   agents), and how many scored attempts of the analysed agents it used. #}
with

clustering as (
    select * from {{ ref('int_family_clustering_computed') }}
),

platform_status as (
    select
        min(status) as status,
        min(reason) as reason,
        coalesce(sum(scored_attempts) filter (where is_included), 0) as attempts_analysed
    from clustering
),

covered as (
    select
        'family_clustering' as detector,
        coalesce(status = 'ok', false) as is_available,
        case
            when status is null then 'no agent has scored attempts'
            when status <> 'ok' then reason
        end as missing_inputs,
        case when status = 'ok' then attempts_analysed else 0 end as rows_analysed
    from platform_status
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from covered
