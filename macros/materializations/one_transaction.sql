{#
    The `table` and `view` materializations of this project on DuckDB: the existing
    relation is dropped (a view is replaced) and the new one created in one transaction
    (BEGIN, DROP, CREATE, COMMIT). DuckDB's DDL is transactional, so a failed build leaves
    the previous relation in place and readers see either the old or the new one, as with
    dbt-duckdb's own materializations. Those also create a temporary name, rename the old
    relation to a backup, rename the new one, drop the backup and look for foreign keys and
    indexes, none of which this project uses: about 1.5 times the statements and Jinja per
    model. Measured on the demo (2 dbt threads, back to back): 487 statements instead of
    726, about 1.2 s less of a 26 s build.
    Contracts, hooks, grants and persist_docs work as in dbt-duckdb (create_table_as,
    run_hooks, apply_grants, persist_docs). Used only when this project is the root
    project: dbt ignores a builtin materialization that an installed package overrides.

    A SQL table without contract or SQL header, where no view of its name is in the way
    (most intermediate models), is not dropped first: `CREATE OR REPLACE TABLE` replaces
    it in the same transaction, one statement and one pass through dbt's statement macros
    less per model (a contract's table is created empty and then filled, so it is dropped).
    A Python model's job runs on a cursor of its own (dbt-duckdb's), outside the
    transaction: it writes the table under a temporary name, and the transaction drops the
    old relation and renames the new one.
#}
{% materialization table, adapter='duckdb', supported_languages=['sql', 'python'] %}
    {%- set language = model['language'] -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}

    {%- set replaced = language == 'sql'
        and not config.get('contract').enforced
        and config.get('sql_header') is none
        and (existing_relation is none or existing_relation.is_table) -%}

    {%- set written_relation = target_relation if language == 'sql'
        else make_intermediate_relation(target_relation) -%}

    {%- if language != 'sql' %}
        {#- what an interrupted run left, before any transaction #}
        {{ drop_relation_if_exists(load_cached_relation(written_relation)) }}
    {%- endif %}
    {{ challenge_fairness._begin_replacing(
        existing_relation, drop_existing=language == 'sql' and not replaced) }}
    {#- Called here, not in a shared macro: dbt runs a Python model's job only from a
        statement its materialization calls itself. #}
    {% call statement('main', language=language) -%}
        {%- if replaced -%}
            create or replace table {{ target_relation }} as (
                {{ compiled_code }}
            );
        {%- else -%}
            {{- create_table_as(False, written_relation, compiled_code, language) }}
        {%- endif -%}
    {%- endcall %}
    {%- if language != 'sql' %}
        {%- if existing_relation is not none %}
            {{ challenge_fairness._drop_in_transaction(existing_relation) }}
        {%- endif %}
        {{ adapter.rename_relation(written_relation, target_relation) }}
    {%- endif %}
    {{ return(challenge_fairness._finish_replacing(target_relation, existing_relation)) }}
{% endmaterialization %}

{% materialization view, adapter='duckdb' %}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='view') -%}

    {{ challenge_fairness._begin_replacing(
        existing_relation,
        drop_existing=(existing_relation is not none and not existing_relation.is_view)) }}
    {% call statement('main') -%}
        create or replace view {{ target_relation }} as (
            {{ sql }}
        );
    {%- endcall %}
    {{ return(challenge_fairness._finish_replacing(target_relation, existing_relation)) }}
{% endmaterialization %}

{# The pre-hooks, `BEGIN` (dbt opens the transaction at the first statement) and the drop. #}
{% macro _begin_replacing(existing_relation, drop_existing) %}
    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {% if drop_existing and existing_relation is not none %}
        {{ challenge_fairness._drop_in_transaction(existing_relation) }}
    {% endif %}
{% endmacro %}

{#- The drop as dbt-duckdb writes it (macro duckdb__drop_relation), but as a statement that
    opens the transaction when no pre-hook has: dbt-duckdb's runs outside any
    (auto_begin=False), so without a hook the drop was committed on its own, and a build
    that failed after it (a contract's check, its insert) left no relation at all. #}
{% macro _drop_in_transaction(relation) %}
    {% do adapter.cache_dropped(relation) %}
    {% call statement('drop_relation', auto_begin=True) -%}
        drop {{ relation.type }} if exists {{ relation }}
        {%- if not adapter.is_ducklake(relation) %} cascade{% endif %}
    {%- endcall %}
{% endmacro %}

{# The post-hooks, grants and docs inside the transaction, `COMMIT`, the post-hooks after. #}
{% macro _finish_replacing(target_relation, existing_relation) %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do apply_grants(
        target_relation,
        config.get('grants'),
        should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) %}
    {% do persist_docs(target_relation, model) %}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {{ return({'relations': [target_relation]}) }}
{% endmacro %}
