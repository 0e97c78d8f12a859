with

source as (
    select * from {{ ref('base_platform__reference_corpus') }}
),

renamed as (
    select
        document_id,
        source,
        content,
        published_at
    from source
    where rejection_reason is null
)

select * from renamed
