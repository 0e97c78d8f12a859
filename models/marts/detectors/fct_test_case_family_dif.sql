{# The public mart; its definition is int_test_case_family_dif_measured (read by the other marts that need it). #}
select * from {{ ref('int_test_case_family_dif_measured') }}
