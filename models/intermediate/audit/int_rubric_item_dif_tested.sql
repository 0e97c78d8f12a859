{#
    One row per rubric item with scored results: the same DIF as test cases (macros/dif/):
    generalised CMH across the families with at least `dif_min_family_results` scored
    results, each family's MH DIF against the others, BH q-values across rubric items.
#}
{{ dif_items_tested(ref('int_rubric_scores_banded'), 'rubric_item_id') }}
