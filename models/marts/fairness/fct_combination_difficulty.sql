{# The public mart; its definition is int_combination_deviations_measured (read by the other marts that need it). #}
select * from {{ ref('int_combination_deviations_measured') }}
