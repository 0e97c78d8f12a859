{#
    Private helpers of the fairness chain macros (fairness_*): the extra partition columns
    one run of the chain is split by, [] for the all-time verdict, ['window_start'] for the
    verdict history. Each renders nothing when the list is empty.
#}

{# "alias.col, " per partition column (unqualified when alias is none): a select/group prefix. #}
{% macro _partition_columns(alias, partition_by) -%}
    {%- for column in partition_by -%}
        {%- if alias %}{{ alias }}.{% endif %}{{ column }}, {% endfor -%}
{%- endmacro %}

{# " and left.col = right.col" per partition column: appended to a join condition. #}
{% macro _partition_join(left, right, partition_by) -%}
    {%- for column in partition_by %} and {{ left }}.{{ column }} = {{ right }}.{{ column }}{% endfor -%}
{%- endmacro %}

{# "group by alias.col, ..." over the partition columns alone (nothing when there are none). #}
{% macro _partition_group_by(partition_by, alias=none) -%}
    {%- if partition_by %}group by {% for column in partition_by -%}
        {%- if alias %}{{ alias }}.{% endif %}{{ column }}{{ ', ' if not loop.last }}
    {%- endfor %}{% endif -%}
{%- endmacro %}

{# "partition by col, ..." for a window function (nothing when there are none). #}
{% macro _partition_window(partition_by) -%}
    {%- if partition_by %}partition by {{ partition_by | join(', ') }}{% endif -%}
{%- endmacro %}
