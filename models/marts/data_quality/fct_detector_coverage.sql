{#
    One row per bias detector: whether its inputs were present, what was missing, and how
    many rows it analysed. A detector whose optional inputs are absent builds an empty mart
    and says so here instead of failing the build.
#}
{%- set coverage_models = [
    'int_approach_bias_coverage',
    'int_api_memorization_coverage',
    'int_briefing_style_coverage',
    'int_contamination_coverage',
    'int_instance_overlap_coverage',
    'int_experiment_coverage',
    'int_irt_coverage',
    'int_family_clustering_coverage',
    'int_test_case_bias_coverage',
    'int_unicode_coverage_coverage',
    'int_combination_remedies_coverage',
    'int_verdict_history_coverage',
    'int_briefing_locale_coverage',
    'int_briefing_domain_coverage',
    'int_rubric_item_bias_coverage',
    'int_rubric_style_lint_coverage',
] %}
with

{% for coverage_model in coverage_models %}
{{ coverage_model }} as (
    select * from {{ ref(coverage_model) }}
),

{% endfor %}
unioned as (
    {% for coverage_model in coverage_models %}
    select detector, is_available, missing_inputs, rows_analysed from {{ coverage_model }}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select
    cast(detector as varchar) as detector,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from unioned
