{#
    Differential item functioning of every item (a test case, a rubric item, ...) from a
    banded relation with one row per (item, challenge_id, model_family, score_band) and
    counts `passes` / `failures` (the item's binary outcome within the attempt-score band).
    A select of one row per item with results: the generalised Cochran-Mantel-Haenszel test
    across the families with at least `dif_min_family_results` results on the item, each
    such family's Mantel-Haenszel DIF against the others (list `family_results`, from the
    test_case_dif UDF), and Benjamini-Hochberg q-values across every item whose GCMH is
    computable. `item_key` names the item column. Shared by test-case and rubric-item DIF.
#}
{% macro dif_items_tested(banded_relation, item_key) -%}
with

banded as (
    select * from {{ banded_relation }}
),

family_totals as (
    select
        {{ item_key }},
        model_family,
        sum(passes + failures) as results
    from banded
    group by {{ item_key }}, model_family
),

eligible_cells as (
    select banded.*
    from banded
    inner join family_totals
        on banded.{{ item_key }} = family_totals.{{ item_key }}
        and banded.model_family = family_totals.model_family
    where family_totals.results >= {{ var('dif_min_family_results') }}
),

item_lists as (
    select
        {{ item_key }},
        count(distinct model_family) as families_tested,
        list(model_family order by model_family, score_band) as families_list,
        list(score_band order by model_family, score_band) as bands_list,
        list(passes order by model_family, score_band) as passes_list,
        list(failures order by model_family, score_band) as failures_list
    from eligible_cells
    group by {{ item_key }}
),

{#- Computed once: DuckDB would inline this CTE and call the Python UDF again wherever
    `flattened` is read (the q-values' filter and list, the result: three times over). #}
tested as {{ materialized_cte() }} (
    select
        {{ item_key }},
        families_tested,
        {{ test_case_dif(
            'families_list', 'bands_list', 'passes_list', 'failures_list',
            var('alpha'), var('dif_negligible_d_dif'), var('dif_large_d_dif')
        ) }} as dif
    from item_lists
),

flattened as (
    select
        {{ item_key }},
        families_tested,
        dif.gcmh_statistic,
        dif.gcmh_df,
        dif.gcmh_p_value,
        dif.informative_bands,
        dif.status,
        dif.reason,
        dif.families as family_results
    from tested
),

q_values as (
    {{ benjamini_hochberg('flattened', item_key, 'gcmh_p_value') }}
),

adjusted as (
    select
        flattened.*,
        q_values.q_value as gcmh_q_value
    from flattened
    left join q_values
        on flattened.{{ item_key }} = q_values.{{ item_key }}
)

select * from adjusted
{%- endmacro %}
