{#
    One row per bias detector: whether its inputs were present, what was missing, and how
    many rows it analysed. A detector whose optional inputs are absent builds an empty mart
    and says so here instead of failing the build.

    Derived from the declarations in `detector_registry()` (macros/detector_registry.sql):
    per detector, one row of measures (each a scalar aggregate over one of its models),
    then its gaps and its rows analysed over those measures.

    Each model a measure reads is scanned once, for all its measures of every detector:
    a scalar subquery per measure kept the state of each (a view's join or grouping)
    until the query ended, and under a small memory cap (1M attempts at 64MB) their sum
    did not fit.
#}
{%- set detectors = challenge_fairness.detector_registry() %}
{%- set max_share = challenge_fairness.validated_var('fairness_gate_max_optional_rejected_share') %}
{#- model -> [[detector__measure, aggregate], ...], the models in first-use order -#}
{%- set measured_models = [] %}
{%- set measures_of = {} %}
{%- for detector in detectors %}
    {%- for measure, spec in detector['measures'].items() %}
        {%- if spec[1] not in measures_of %}
            {%- do measured_models.append(spec[1]) %}
            {%- do measures_of.update({spec[1]: []}) %}
        {%- endif %}
        {%- do measures_of[spec[1]].append([detector['name'] ~ '__' ~ measure, spec[0]]) %}
    {%- endfor %}
{%- endfor %}
with

{% for model in measured_models %}
{{ model }}_measures as (
    select
        {%- for column, aggregate in measures_of[model] %}
        {{ aggregate }} as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ ref(model) }}
),

{% endfor %}
{#- One row, computed once before the detectors read it. #}
measures as {{ challenge_fairness.materialized_cte() }} (
    select
        {%- for model in measured_models %}
        {%- set outer = loop %}
        {%- for column, _ in measures_of[model] %}
        {{ model }}_measures.{{ column }}{{ ',' if not (outer.last and loop.last) }}
        {%- endfor %}
        {%- endfor %}
    from {{ measured_models[0] }}_measures
    {%- for model in measured_models[1:] %}
    cross join {{ model }}_measures
    {%- endfor %}
),

{% for detector in detectors %}
{%- set missing = challenge_fairness.detector_missing_inputs(detector) %}
{#- An optional table it requires that is present but unusable (every row, or more than
    fairness_gate_max_optional_rejected_share of its rows, rejected) is a gap too, judged like the
    required tables (the gate's optional_table_unusable). -#}
{%- set input_gaps = [] %}
{%- for input in detector['requires'] if '.' not in input %}
{%- set counted = "from " ~ ref('fct_source_row_counts') ~ " where source_table = '" ~ input ~ "' and raw_rows > 0" %}
{%- do input_gaps.append([
    "(select rejected_rows > " ~ max_share ~ " * raw_rows " ~ counted ~ ")",
    "(select 'optional table " ~ input ~ " unusable: ' || rejected_rows || ' of ' || raw_rows"
    ~ " || ' raw rows rejected (above fairness_gate_max_optional_rejected_share = " ~ max_share
    ~ "; see fct_rejected_rows)' " ~ counted ~ ")"]) %}
{%- endfor %}
{%- set gaps = input_gaps + detector['gaps'] %}
{{ detector['name'] }}_measured as (
    select
        {%- for measure in detector['measures'] %}
        {{ detector['name'] }}__{{ measure }} as {{ measure }}{{ ',' if not loop.last }}
        {%- endfor %}
    from measures
),

{{ detector['name'] }}_covered as (
    select
        '{{ detector['name'] }}' as detector,
        '{{ detector['mart'] }}' as mart,
        {% if missing is not none -%}
        false as is_available,
        {{ challenge_fairness.sql_string_literal(missing) }} as missing_inputs,
        {%- elif gaps -%}
        not (
            {% for condition, _ in gaps -%}
            coalesce({{ condition }}, false){{ ' or' if not loop.last }}
            {% endfor -%}
        ) as is_available,
        nullif(concat_ws(
            '; ',
            {%- for condition, message in gaps %}
            case when {{ condition }} then {{ message }} end{{ ',' if not loop.last }}
            {%- endfor %}
        ), '') as missing_inputs,
        {%- else -%}
        true as is_available,
        cast(null as varchar) as missing_inputs,
        {%- endif %}
        {{ detector['rows'] }} as rows_analysed
    from {{ detector['name'] }}_measured
),

{% endfor %}
unioned as (
    {%- for detector in detectors %}
    select * from {{ detector['name'] }}_covered
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
)

select
    cast(detector as varchar) as detector,
    cast(mart as varchar) as mart,
    cast(is_available as boolean) as is_available,
    cast(missing_inputs as varchar) as missing_inputs,
    cast(rows_analysed as bigint) as rows_analysed
from unioned
-- sqlfluff:exclude_rules:RF01,RF03,AM03,AM04,ST06,LT08,LT01,LT02,LT06
