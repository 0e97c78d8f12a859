{#
    Every clean agent with its model and the model's family: the lookup that sums of attempt
    cells by model or family are summed with (macro fold_delta_of). A new agent leaves them
    as they are; an agent moved to another model, or a model to another family, makes the
    models folding the cells' delta count every cell again.
#}
{% macro agent_families() -%}
    select agents.agent_id, agents.model_id, models.model_family
    from {{ ref('int_keyed__agents') }} as agents
    inner join {{ ref('stg_platform__models') }} as models
        on agents.model_id = models.model_id
{%- endmacro %}
