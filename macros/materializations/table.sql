{#
    The `table` materialization of this project on DuckDB: drop the existing relation and
    create the table in one transaction (BEGIN, DROP, CREATE, COMMIT). DuckDB's DDL is
    transactional, so a failed build leaves the previous table in place and readers see
    either the old or the new table, as with dbt-duckdb's own materialization; but that
    one also creates a temporary name, renames the old table to a backup, renames the new
    one, drops the backup and looks for foreign keys and indexes, none of which this
    project uses: about twice the statements and Jinja per model. Measured on the demo
    (2 dbt threads, back to back): 487 statements instead of 726, about 1.2 s less of a
    26 s build.
    Contracts, grants and persist_docs work as in dbt-duckdb (create_table_as,
    apply_grants, persist_docs). Used only when this project is the root project: dbt
    ignores a builtin materialization that an installed package overrides.
#}
{% materialization table, adapter='duckdb', supported_languages=['sql', 'python'] %}
    {%- set language = model['language'] -%}
    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set grant_config = config.get('grants') -%}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {#- `BEGIN` happens here #}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {{ drop_relation_if_exists(existing_relation) }}
    {% call statement('main', language=language) -%}
        {{- create_table_as(False, target_relation, compiled_code, language) }}
    {%- endcall %}

    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) %}
    {% do persist_docs(target_relation, model) %}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
