{#
    The rows of base model `base_platform__<table_name>` that the key checks after staging
    rejected (int_keyed__rows_rejected), as a relation of their `source_row_number`. A
    reader keeps the rows clean by both with
        left join {{ rejected_after_staging('attempts') }} as rejected
            on attempts.source_row_number = rejected.source_row_number
        where attempts.rejection_reason is null and rejected.source_row_number is null
    a hash join on the few rejected rows that the staged rows stream past (a correlated
    `not exists` decorrelates into a join on every distinct staged row number, and a
    `not in` into a null-aware mark join: both cost seconds per 10M attempts).
#}
{% macro rejected_after_staging(table_name) -%}
    (
        select rejected_rows.source_row_number
        from {{ ref('int_keyed__rows_rejected') }} as rejected_rows
        where rejected_rows.source_table = '{{ table_name }}'
    )
{%- endmacro %}
