{#
    The `view` materialization of this project on DuckDB: `create or replace view` in one
    transaction (a table of the same name is dropped first), instead of creating a
    temporary view and swapping names with a backup. See table.sql for why and what was
    measured; used only when this project is the root project.
#}
{% materialization view, adapter='duckdb' %}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='view') -%}
    {%- set grant_config = config.get('grants') -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {#- `BEGIN` happens here #}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {% if existing_relation is not none and not existing_relation.is_view %}
        {{ drop_relation_if_exists(existing_relation) }}
    {% endif %}
    {% call statement('main') -%}
        create or replace view {{ target_relation }} as (
            {{ sql }}
        );
    {%- endcall %}

    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) %}
    {% do persist_docs(target_relation, model) %}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
