with

rejected as (
    {{ rejected_platform_rows() }}
)

select
    cast(source_table as varchar) as source_table,
    cast(source_row_number as bigint) as source_row_number,
    cast(record_id as varchar) as record_id,
    cast(rejection_reason as varchar) as rejection_reason,
    cast(raw_record as varchar) as raw_record
from rejected
