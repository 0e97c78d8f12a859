{#
    One row per test case with scored results: the generalised Cochran-Mantel-Haenszel test
    across the families that have at least `dif_min_family_results` scored results on it,
    and each such family's Mantel-Haenszel DIF against the others (cf_test_case_dif over
    the test case's (family, band, passes, failures) lists). Benjamini-Hochberg q-values
    across every test case whose GCMH is computable. The DIF steps are shared with
    rubric-item DIF (macros/dif/).
#}
{{ dif_items_tested(ref('int_test_case_results_banded'), 'test_case_id') }}
