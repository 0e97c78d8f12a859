{#
    Whether an incremental run of a model that stages a whole dimension table again only
    when it changed (base_platform__reference_corpus) stages every row again: true when
    `staged_with`, the SQL expression of what the rows are staged from and with, differs
    from the value stored with them, or the stored table has no `staged_with` column (a
    table an older version of the package built: the model's on_schema_change
    'sync_all_columns' then adds the column to the emptied table, so an upgrade needs no
    --full-refresh; macro check_run_start lets such a model, meta `restaged_in_full`, pass).

    Called twice per run: by the model, while it compiles, with `staged_with`, which
    decides and keeps the answer for this invocation (macro invocation_cache); then by its
    pre-hook, without, which reads that answer to empty the table before the rows are
    staged again. The pre-hook never decides on its own: emptying a table whose model
    inserts nothing would lose it, so a missing answer stops the run.
#}
{% macro restaging(relation, staged_with=none) -%}
    {%- set cache = challenge_fairness.invocation_cache() -%}
    {%- set key = 'restaging:' ~ relation -%}
    {%- if staged_with is none -%}
        {%- if key not in cache -%}
            {{ exceptions.raise_compiler_error(
                "restaging: " ~ relation ~ " was not compiled in this run, so whether to "
                ~ "stage its rows again is not known; run it again.") }}
        {%- endif -%}
        {{ return(cache[key]) }}
    {%- endif -%}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set stored_columns = adapter.get_columns_in_relation(relation)
        | map(attribute='name') | map('lower') | list -%}
    {%- if 'staged_with' not in stored_columns -%}
        {%- set restage = true -%}
    {%- else -%}
        {%- set unchanged = run_query(
            'select (' ~ staged_with ~ ') = (select any_value(staged_with) from '
            ~ relation ~ ')').columns[0].values()[0] -%}
        {%- set restage = not unchanged -%}
    {%- endif -%}
    {%- do cache.update({key: restage}) -%}
    {{ return(restage) }}
{%- endmacro %}
