{#
    The required raw tables and columns of the source contract (README "Source contract"),
    table -> [(column, DuckDB type)]. Staging casts each value and rejects bad ones per row,
    so the types say what is expected; a missing table or column, or a type that is neither
    the contract's nor a safe cast of it (check_raw_types.sql), stops the run.
    Optional tables and columns (macros/optional_sources.sql) are not listed: absent is fine.
#}
{% macro _raw_input_contract() -%}
    {{ return({
        'attempts': [
            ('attempt_id', 'VARCHAR'), ('challenge_id', 'VARCHAR'), ('agent_id', 'VARCHAR'),
            ('score', 'DOUBLE'), ('submitted_at', 'TIMESTAMP'),
        ],
        'challenges': [
            ('challenge_id', 'VARCHAR'), ('template_id', 'VARCHAR'), ('variables', 'VARCHAR'),
            ('briefing_style', 'VARCHAR'), ('experiment_id', 'VARCHAR'),
            ('experiment_arm', 'VARCHAR'), ('tags', 'VARCHAR[]'),
        ],
        'agents': [('agent_id', 'VARCHAR'), ('model_id', 'VARCHAR')],
        'models': [('model_id', 'VARCHAR'), ('model_family', 'VARCHAR'), ('training_cutoff', 'DATE')],
    }) }}
{%- endmacro %}
