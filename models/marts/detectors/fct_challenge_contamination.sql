{# The public mart; its definition is int_challenge_contamination_scored (read by the other marts that need it). #}
select * from {{ ref('int_challenge_contamination_scored') }}
