{#
    The raw test results whose key (attempt_id, test_case_id) occurs more than once, with
    their duplicate_kind (macro key_duplicates); none on clean data.
    A table of its own rather than a CTE of base_platform__test_results: in one statement
    DuckDB keeps the memory of this grouping over every raw row while the 20M x 10M join
    to the attempts runs, and that join then spills. Measured at 10M attempts (19.8M test
    results, 512MB): 13.9 s in one statement, 1.9 s + 8.8 s apart.
#}
{%- set raw_test_results = optional_source_rows(
    'test_results',
    {'attempt_id': 'varchar', 'test_case_id': 'varchar', 'passed': 'boolean'}
) %}
{{ key_duplicates(raw_test_results, ['attempt_id', 'test_case_id'], ['passed']) }}
