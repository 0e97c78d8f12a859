{#
    True for a row of base model `base_platform__<table_name>` (clean by its own table's
    rules) that the key checks after staging kept: its source_row_number is not among the
    rows of that table int_keyed__rows_rejected lists. Few rows are rejected there, so the
    anti-join probes a small set.
#}
{% macro kept_after_staging(table_name) -%}
    source_row_number not in (
        select rejected.source_row_number
        from {{ ref('int_keyed__rows_rejected') }} as rejected
        where rejected.source_table = '{{ table_name }}'
    )
{%- endmacro %}
