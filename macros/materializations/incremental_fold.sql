{#
    Incremental strategy `fold`, for a model that stores a compressed fact beside the rows
    it keeps one by one (a rejected raw row, say):
    - a row with a NULL `unique_key` is a group: its `fold_measures` (config, a list of
      additive columns, the first of them the row count) are summed over every column
      that is not a measure, not in `fold_maxima` (config, a list, kept as their maximum)
      and not the key. A run's rows add to the stored groups (a negative measure takes a
      row out of a group); a group whose first measure folds to 0 is dropped;
    - a row with a key is kept as it is, and the run's keyed rows replace every stored
      keyed row: the model must select all of them on every incremental run.
    The model's incremental select is therefore the delta of its groups plus all of its
    keyed rows. Only the stored groups the run touches are read and rewritten (a group is
    matched on every grouping column, NULL matching NULL), in the transaction of dbt's
    incremental materialization.
#}
{% macro get_incremental_fold_sql(arg_dict) -%}
    {%- set target = arg_dict['target_relation'] -%}
    {%- set temp = arg_dict['temp_relation'] -%}
    {%- set key = arg_dict['unique_key'] -%}
    {%- set measures = config.get('fold_measures') or [] -%}
    {%- set maxima = config.get('fold_maxima') or [] -%}
    {%- if key is not string or measures | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            "incremental_strategy 'fold' needs one unique_key column and a list fold_measures") }}
    {%- endif -%}
    {%- set columns = arg_dict['dest_columns'] | map(attribute='name') | list -%}
    {%- set grouped = columns | reject('in', measures + maxima) | list -%}
    {%- set folded = target.identifier ~ '__folded' -%}
    {#- a stored group the run touches: the same grouping values as one of its rows #}
    {%- set touched -%}
        exists (
            select 1
            from {{ temp }} as delta
            where delta.{{ key }} is null
                {%- for column in grouped if column != key %}
                and delta.{{ column }} is not distinct from stored.{{ column }}
                {%- endfor %}
        )
    {%- endset -%}
    create temporary table {{ folded }} as
    select
        {% for column in columns -%}
            {%- if column in measures -%} sum({{ column }}) as {{ column }}
            {%- elif column in maxima -%} max({{ column }}) as {{ column }}
            {%- else -%} {{ column }}
            {%- endif %}{{ ',' if not loop.last }}
        {% endfor -%}
    from (
        select {{ columns | join(', ') }}
        from {{ target }} as stored
        where stored.{{ key }} is null
            and {{ touched }}
        union all
        select {{ columns | join(', ') }} from {{ temp }} where {{ key }} is null
    ) as groups
    group by {{ grouped | join(', ') }}
    having sum({{ measures[0] }}) <> 0;

    delete from {{ target }} as stored
    where stored.{{ key }} is not null
        or {{ touched }};

    insert into {{ target }} ({{ columns | join(', ') }})
    select {{ columns | join(', ') }} from {{ folded }}
    union all
    select {{ columns | join(', ') }} from {{ temp }} where {{ key }} is not null;

    drop table {{ folded }}
{%- endmacro %}
