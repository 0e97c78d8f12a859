{# The consumer set min_attempts = 50: every challenge with >= 50 scored attempts is eligible. #}
select *
from {{ ref('fct_family_deviation') }}
where is_eligible <> (challenge_attempts >= 50)
