{# Fails on every non-NULL value of `column_name` outside [min_value, max_value]. #}
{% test accepted_range(model, column_name, min_value=none, max_value=none) %}
{%- if min_value is none and max_value is none -%}
    {{ exceptions.raise_compiler_error("accepted_range: give min_value, max_value or both") }}
{%- endif %}
select *
from {{ model }}
where {{ column_name }} is not null
    and (
        false
        {%- if min_value is not none %} or {{ column_name }} < {{ min_value }}{% endif %}
        {%- if max_value is not none %} or {{ column_name }} > {{ max_value }}{% endif %}
    )
{% endtest %}
