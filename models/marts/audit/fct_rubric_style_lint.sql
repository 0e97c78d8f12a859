{# The public mart; its definition is int_rubric_style_lint_listed (read by the other marts that need it). #}
select * from {{ ref('int_rubric_style_lint_listed') }}
