{# fct_family_clustering is one row per platform run: exactly one row, even without agents. #}
select count(*) as platform_rows
from {{ ref('fct_family_clustering') }}
having count(*) <> 1
