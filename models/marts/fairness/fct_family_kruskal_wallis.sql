{# The public mart; its definition is int_challenge_raw_ranks_tested (read by the other marts that need it). #}
select * from {{ ref('int_challenge_raw_ranks_tested') }}
