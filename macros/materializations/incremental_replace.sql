{#
    Incremental strategy `replace`, for a small table whose incremental select is its whole
    new content, computed from its stored rows ({{ this }}) and what changed upstream (e.g.
    int_keyed__rows_rejected: the rejected rows, of which a run checks only those that can
    change): every stored row is deleted and the select's rows inserted, in the transaction
    of dbt's incremental materialization. Unlike a table rebuilt in full, the select can read
    the stored rows; unlike `delete+insert`, a stored row the select no longer gives goes.
#}
{% macro get_incremental_replace_sql(arg_dict) -%}
    {%- set columns = arg_dict['dest_columns'] | map(attribute='name') | join(', ') -%}
    delete from {{ arg_dict['target_relation'] }};

    insert into {{ arg_dict['target_relation'] }} ({{ columns }})
    select {{ columns }} from {{ arg_dict['temp_relation'] }}
{%- endmacro %}
