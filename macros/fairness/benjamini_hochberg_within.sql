{#
    Benjamini-Hochberg q-values across the rows of `relation` with a non-NULL p, separately
    within each combination of the `partition_by` columns: a select of
    (partition..., <key_column>, q_value). With partition_by = [] it is
    benjamini_hochberg (macros/statistics.sql) across all rows.
#}
{% macro benjamini_hochberg_within(relation, key_column, p_column, partition_by=[]) -%}
    {{ return(adapter.dispatch('benjamini_hochberg_within', 'challenge_fairness')(
        relation, key_column, p_column, partition_by)) }}
{%- endmacro %}

{% macro duckdb__benjamini_hochberg_within(relation, key_column, p_column, partition_by=[]) -%}
    select
        {{ _partition_columns(none, partition_by) }}unnest(keys) as {{ key_column }},
        unnest(q_values) as q_value
    from (
        select
            {{ _partition_columns(none, partition_by) }}list({{ key_column }} order by {{ key_column }}) as keys,
            cf_benjamini_hochberg(list({{ p_column }} order by {{ key_column }})) as q_values
        from {{ relation }}
        where {{ p_column }} is not null
        {{ _partition_group_by(partition_by) }}
    ) as adjusted
{%- endmacro %}

{% macro default__benjamini_hochberg_within(relation, key_column, p_column, partition_by=[]) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error(
        "benjamini_hochberg_within: no UDF for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}
