{#
    A window expression: the last non-NULL value of `expression` in the rows BEFORE the
    current one within `partition_by` (a list of columns) ordered by `order_by`; NULL when
    there is none.
#}
{% macro previous_value_ignoring_nulls(expression, partition_by, order_by) -%}
    {{ return(adapter.dispatch('previous_value_ignoring_nulls', 'challenge_fairness')(
        expression, partition_by, order_by)) }}
{%- endmacro %}

{% macro default__previous_value_ignoring_nulls(expression, partition_by, order_by) -%}
    last_value({{ expression }} ignore nulls) over (
        {{ _partition_window(partition_by) }}
        order by {{ order_by }}
        rows between unbounded preceding and 1 preceding
    )
{%- endmacro %}
