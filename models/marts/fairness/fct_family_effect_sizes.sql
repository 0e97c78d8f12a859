{# The public mart; its definition is int_family_effect_sizes_measured (read by the other marts that need it). #}
select * from {{ ref('int_family_effect_sizes_measured') }}
