{#
    Every raw platform row that could not be used, with its table, row number, id, reason
    and raw record: the rows the key checks after staging list (int_keyed__rows_rejected)
    and the test results and rubric scores rejected where they are checked.
#}
{% macro rejected_platform_rows() -%}
    select
        source_table,
        source_row_number,
        record_id,
        rejection_reason,
        raw_record
    from {{ ref('int_keyed__rows_rejected') }}
    union all
    select
        'test_results' as source_table,
        source_row_number,
        attempt_id || '/' || test_case_id as record_id,
        rejection_reason,
        raw_record
    from {{ ref('int_keyed__test_results_checked') }}
    where rejection_reason is not null
    union all
    select
        'rubric_scores' as source_table,
        source_row_number,
        rubric_score_id as record_id,
        rejection_reason,
        raw_record
    from {{ ref('int_keyed__rubric_scores_checked') }}
    where rejection_reason is not null
{%- endmacro %}
