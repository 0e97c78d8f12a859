{#
    A dict that lives for one dbt invocation and is shared by all its nodes and threads.
    It holds what a run looks up about its raw inputs: where a raw table's parquet files
    lie, and which columns a raw table has. Without it, every model and test that reads a
    raw table asks again. A 100M build asked about 450 times; each question costs a query
    and its round trip through dbt, about 10 ms.
    It lives in `graph` (the manifest's flat graph: one dict per invocation, given to every
    node), as dbt packages such as elementary keep their caches. It is keyed by
    `invocation_id`, so a manifest a later invocation reuses (dbtRunner) starts empty.
    Looking each input up once also means every node of a run sees the same files.
    Only at execution: at parse time there is nothing to look up and no graph yet.
#}
{% macro invocation_cache() -%}
    {%- set caches = graph.setdefault('challenge_fairness', {}) -%}
    {%- if caches.get('invocation_id') != invocation_id -%}
        {%- do caches.update({'invocation_id': invocation_id, 'entries': {}}) -%}
    {%- endif -%}
    {{ return(caches['entries']) }}
{%- endmacro %}


{#
    The lower-cased column names of `relation_sql` (a relation or table-function call),
    looked up once per invocation (`select * ... limit 0`).
#}
{% macro relation_column_names(relation_sql) -%}
    {%- set cache = challenge_fairness.invocation_cache() -%}
    {%- set key = 'columns:' ~ relation_sql -%}
    {%- if key not in cache -%}
        {%- do cache.update({key: run_query('select * from ' ~ relation_sql ~ ' limit 0').column_names
            | map('lower') | list}) -%}
    {%- endif -%}
    {{ return(cache[key]) }}
{%- endmacro %}
