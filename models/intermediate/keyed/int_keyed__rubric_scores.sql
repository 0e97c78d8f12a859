with

source as (
    select * from {{ ref('int_keyed__rubric_scores_checked') }}
),

renamed as (
    select
        rubric_score_id,
        attempt_id,
        rubric_item_id,
        points,
        agent_id,
        attempt_score
    from source
    where rejection_reason is null
        and is_in_scan
)

select * from renamed
