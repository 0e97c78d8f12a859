{#
    The descriptions of the public marts (is_public_mart) as database comments, for the BI
    tools that browse the database: one `comment on` per mart and per documented column,
    sent in one statement and one transaction at the end of the run, for the marts this run
    built successfully.

    This replaces dbt's `persist_docs` config, which costs two `describe` queries and one
    rendering of its macros per model: about 5 s of thread time in a 35 s demo build. The
    comments are the same (the model's and the columns' `description`).
#}
{% macro persist_public_docs(results) -%}
    {%- if not execute -%}{{ return('') }}{%- endif -%}
    {%- set statements = [] -%}
    {%- for result in results or [] -%}
        {%- set node = result.node -%}
        {%- if result.status == 'success' and challenge_fairness.is_public_mart(node) -%}
            {%- set relation = api.Relation.create(
                database=node.database, schema=node.schema, identifier=node.alias) -%}
            {%- if node.description -%}
                {%- do statements.append('comment on table ' ~ relation ~ ' is '
                    ~ challenge_fairness.sql_string_literal(node.description)) -%}
            {%- endif -%}
            {%- for column in node.columns.values() if column.description -%}
                {%- do statements.append('comment on column ' ~ relation ~ '.'
                    ~ adapter.quote(column.name) ~ ' is '
                    ~ challenge_fairness.sql_string_literal(column.description)) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {#- one transaction: 849 comments at 100M took 0.36 s committed one by one, 0.17 s together -#}
    {%- if statements -%}
        {%- call statement('persist_public_docs', auto_begin=true) -%}
            {{ statements | join(';\n') }}
        {%- endcall -%}
        {%- do adapter.commit() -%}
    {%- endif -%}
    {{ return('') }}
{%- endmacro %}
