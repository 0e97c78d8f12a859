{#
    The detectors, declared once, as data: one entry per detector, read by
    fct_detector_coverage (and by the tests that keep the exposures and the docs in step).

    Each entry:
      name      the detector's id (fct_detector_coverage.detector, tag `detector:<name>`)
      mart      its public mart
      gate_suites  the Great Expectations suites (python_udfs/challenge_fairness/gx_suites)
                that gate its marts; the gate runs every declared suite unless the var
                `fairness_gate_suites` lists others
      thresholds   the dbt vars those suites compare against (handed to the gate)
      evidence  for a detector whose findings reach the review queue: its findings query is
                the macro `<name>_findings` (macros/evidence/, dispatched), `cause` (SQL)
                names the root cause in words and `cause_id` (SQL, default
                '<detector>:<challenge_id>') keys it, over the finding's columns and
                finding_item / finding_template_id; `explains_family_bias` when such a
                finding can explain a flagged family bias on the same challenge
                (int_bias_evidence_unioned)
      requires  optional raw inputs it cannot run without: a table ('test_cases') or a
                column ('attempts.approach'); checked when the run compiles. When one is
                absent the detector is unavailable and `missing_inputs` names them all.
      measures  name -> [aggregate SQL, model]: one number (or text) per detector,
                `select <aggregate> from <model>`; a measure over some of the rows filters
                inside its aggregate (`count(*) filter (where ...)`), so that every measure
                of a model, across detectors, is read in one scan of it
      gaps      [[condition, message SQL], ...] over the measures: each condition that
                holds is a reason the detector could not judge anything (its message is
                listed; make conditions exclusive where one reason implies another).
                Checked only when every required input is present.
      rows      SQL over the measures: the rows (attempts, results, inputs) it analysed

    The detector is available when no required input is absent and no gap holds.
    Adding a detector: add its entry here (its models, mart and gate suite are its own).
#}
{% macro detector_registry() %}
{%- set unicode_tag = challenge_fairness.sql_string_literal(var('unicode_coverage_tag')) -%}
{%- set fitted = "fit_status in ('ok', 'boundary')" -%}
{{ return([
    {
        'name': 'family_verdict',
        'mart': 'fct_challenge_verdicts',
        'gate_suites': ['challenge_verdicts_not_flagged', 'family_deviation_within_threshold'],
        'thresholds': ['family_deviation_threshold'],
        'requires': [],
        'measures': {
            'clean_attempts': ["coalesce(sum(attempts) filter (where verdict_window = 'all'), 0)",
                               'int_attempt_scores_counted'],
            'scored_attempts': ["coalesce(sum(attempts) filter (where verdict_window = 'all' and score is not null), 0)",
                                'int_attempt_scores_counted'],
        },
        'gaps': [
            ['clean_attempts = 0', "'attempts: no clean attempt'"],
            ['clean_attempts > 0 and scored_attempts = 0', "'attempts.score: NULL on every clean attempt'"],
        ],
        'rows': 'scored_attempts',
    },
    {
        'name': 'combination_difficulty',
        'mart': 'fct_combination_difficulty',
        'evidence': {
            'cause_id': "'combination:' || finding_template_id || '/' || finding_item",
            'cause': "'variable combination ' || finding_item || ' of template ' || finding_template_id || ' is off the template''s difficulty'",
        },
        'gate_suites': ['combination_difficulty_within_threshold'],
        'thresholds': ['combination_deviation_threshold'],
        'requires': [],
        'measures': {
            'combinations': ['count(*)', 'int_combination_deviations_measured'],
            'scored_attempts': ['coalesce(sum(attempts), 0)', 'int_combination_deviations_measured'],
        },
        'gaps': [['combinations = 0', "'challenges.variables: no templated challenge with scored attempts'"]],
        'rows': 'scored_attempts',
    },
    {
        'name': 'attempts_needed',
        'mart': 'fct_challenge_attempts_needed',
        'evidence': {
            'cause': "'verdict on ' || challenge_id || ' undecided: too few attempts'",
        },
        'requires': [],
        'measures': {
            'undecided_challenges': ["count(*) filter (where verdict_window = 'all' and verdict = 'insufficient_evidence')",
                                     'int_challenge_verdicts_decided'],
            'undecided_attempts': ["coalesce(sum(attempts) filter (where verdict_window = 'all' and verdict = 'insufficient_evidence'), 0)",
                                   'int_challenge_verdicts_decided'],
        },
        'gaps': [],
        'rows': 'undecided_attempts',
    },
    {
        'name': 'approach_bias',
        'mart': 'fct_approach_bias',
        'evidence': {
            'cause_id': "'approach:' || finding_id",
            'cause': "'approaches ' || finding_item || ' scored differently on ' || challenge_id",
            'explains_family_bias': true,
        },
        'gate_suites': ['approach_bias_within_threshold'],
        'thresholds': ['approach_gap_threshold'],
        'requires': ['attempts.approach'],
        'measures': {
            'labelled_attempts': ['count(*)', 'int_keyed__attempt_approaches'],
            'scored_labelled_attempts': ['coalesce(sum(scored_attempts), 0)', 'int_approach_strata_summarised'],
        },
        'gaps': [['labelled_attempts = 0', "'attempts.approach: no labelled attempt'"]],
        'rows': 'scored_labelled_attempts',
    },
    {
        'name': 'api_memorization',
        'mart': 'fct_api_memorization',
        'evidence': {
            'cause_id': "finding_item",
            'cause': "'newer models memorised ' || finding_item",
            'explains_family_bias': true,
        },
        'gate_suites': ['api_memorization_within_threshold'],
        'thresholds': ['api_memorization_slope_threshold'],
        'requires': [],
        'measures': {
            'tagged_rows': ['count(*)', 'int_api_challenges_tagged'],
            'models_with_cutoff': ['count(*) filter (where training_cutoff is not null)',
                                   'int_model_cutoffs_centred'],
            'control_cells': ['count(*) filter (where is_control)', 'int_api_memorization_cells_prepared'],
            'attempts_analysed': ['coalesce(sum(scored_attempts), 0)', 'int_api_memorization_cells_prepared'],
        },
        'gaps': [
            ['tagged_rows = 0', "'challenges.tags: no challenge is tagged api:<name>'"],
            ['models_with_cutoff = 0', "'models.training_cutoff: NULL for every model'"],
            ['tagged_rows > 0 and models_with_cutoff > 0 and control_cells = 0',
             "'no untagged (control) challenge with scored attempts by a model with a cutoff'"],
        ],
        'rows': 'case when tagged_rows > 0 and models_with_cutoff > 0 and control_cells > 0 then attempts_analysed else 0 end',
    },
    {
        'name': 'briefing_style_sensitivity',
        'mart': 'fct_briefing_style_sensitivity',
        'evidence': {
            'cause_id': "'briefing_style:' || finding_template_id || '/' || finding_item",
            'cause': "'briefing style ' || finding_item || ' of template ' || finding_template_id || ' moves a family''s result'",
            'explains_family_bias': true,
        },
        'gate_suites': ['briefing_style_sensitivity_within_threshold'],
        'thresholds': ['briefing_style_threshold'],
        'requires': [],
        'measures': {
            'contents': ['count(*)', 'int_briefing_style_contents_tested'],
            'attempts': ["coalesce(sum(case when status = 'tested' then attempts end), 0)", 'int_briefing_style_contents_tested'],
        },
        'gaps': [['contents = 0', "'no content offered in two briefing styles'"]],
        'rows': 'attempts',
    },
    {
        'name': 'challenge_contamination',
        'mart': 'fct_challenge_contamination',
        'evidence': {
            'cause_id': "'reference_document:' || finding_item",
            'cause': "'code public in reference document ' || finding_item",
            'explains_family_bias': true,
        },
        'gate_suites': ['challenges_not_contaminated'],
        'thresholds': ['contamination_similarity_threshold', 'contamination_containment_threshold'],
        'requires': ['challenge_files', 'reference_corpus'],
        'measures': {
            'files': ["count(*) filter (where normalisation = 'normalised' and document_kind = 'challenge_file')",
                      'int_code_documents_shingled'],
            'reference_documents': ["count(*) filter (where normalisation = 'normalised' and document_kind = 'reference_document')",
                                    'int_code_documents_shingled'],
            'compared_documents': ["count(*) filter (where normalisation = 'normalised' and document_kind in ('challenge_file', 'reference_document') and is_compared)",
                                   'int_code_documents_shingled'],
        },
        'gaps': [
            ['files = 0 and reference_documents = 0', "'challenge_files and reference_corpus have no usable rows'"],
            ['files = 0 and reference_documents > 0', "'challenge_files has no usable rows'"],
            ['files > 0 and reference_documents = 0', "'reference_corpus has no usable rows'"],
        ],
        'rows': 'compared_documents',
    },
    {
        'name': 'challenge_instance_overlap',
        'mart': 'fct_challenge_instance_overlap',
        'evidence': {
            'cause_id': "'instance_overlap:' || least(challenge_id, finding_item) || '/' || greatest(challenge_id, finding_item)",
            'cause': "'shared code of ' || least(challenge_id, finding_item) || ' and ' || greatest(challenge_id, finding_item)",
        },
        'gate_suites': ['challenge_instances_unique'],
        'thresholds': ['contamination_similarity_threshold', 'contamination_containment_threshold'],
        'requires': ['challenge_files'],
        'measures': {
            'codebases': ["count(*) filter (where normalisation = 'normalised' and document_kind = 'challenge_codebase')",
                          'int_code_documents_shingled'],
            'compared_codebases': ["count(*) filter (where normalisation = 'normalised' and document_kind = 'challenge_codebase' and is_compared)",
                                   'int_code_documents_shingled'],
        },
        'gaps': [
            ['codebases = 0', "'challenge_files has no usable rows'"],
            ['codebases = 1', "'only one challenge has files'"],
        ],
        'rows': 'compared_codebases',
    },
    {
        'name': 'experiment_results',
        'mart': 'fct_experiment_results',
        'requires': [],
        'measures': {
            'experiments': ['count(*) filter (where arm_a_attempts > 0 and arm_b_attempts > 0)',
                            'int_experiments_tested'],
            'attempts': ['coalesce(sum(arm_a_attempts + arm_b_attempts) filter (where arm_a_attempts > 0 and arm_b_attempts > 0), 0)',
                         'int_experiments_tested'],
        },
        'gaps': [['experiments = 0',
                  "'no challenge with experiment_id and both arms (A and B) with scored attempts'"]],
        'rows': 'attempts',
    },
    {
        'name': 'challenge_irt',
        'mart': 'fct_challenge_irt',
        'requires': [],
        'measures': {
            'challenges': ["count(*) filter (where entity_kind = 'challenge')",
                           'int_irt_parameters_estimated'],
            'fitted_challenges': ["count(*) filter (where entity_kind = 'challenge' and " ~ fitted ~ ')',
                                  'int_irt_parameters_estimated'],
            'fitted_attempts': ["coalesce(sum(attempts) filter (where entity_kind = 'challenge' and " ~ fitted ~ '), 0)',
                                'int_irt_parameters_estimated'],
            'fit_reasons': ["string_agg(distinct fit_reason, '; ' order by fit_reason) filter (where entity_kind = 'challenge')",
                            'int_irt_parameters_estimated'],
        },
        'gaps': [
            ['challenges = 0', "'no scored attempts'"],
            ['challenges > 0 and fitted_challenges = 0',
             "'no challenge could be fitted (irt_pass_score = " ~ var('irt_pass_score')
             ~ "): ' || coalesce(fit_reasons, 'no estimable challenge')"],
        ],
        'rows': 'fitted_attempts',
    },
    {
        'name': 'family_clustering',
        'mart': 'fct_family_clustering',
        'requires': [],
        'measures': {
            'status': ['min(status)', 'int_family_clustering_computed'],
            'reason': ['min(reason)', 'int_family_clustering_computed'],
            'attempts_analysed': ['coalesce(sum(case when is_included then scored_attempts end), 0)',
                                  'int_family_clustering_computed'],
        },
        'gaps': [
            ['status is null', "'no agent has scored attempts'"],
            ["status <> 'ok'", 'reason'],
        ],
        'rows': "case when status = 'ok' then attempts_analysed else 0 end",
    },
    {
        'name': 'test_case_bias',
        'mart': 'fct_test_case_bias',
        'evidence': {
            'cause_id': "'test_case:' || finding_item",
            'cause': "'test case ' || finding_item || ' functions differently by family'",
            'explains_family_bias': true,
        },
        'requires': ['test_cases', 'test_results'],
        'measures': {
            'results': ['coalesce(sum(passes + failures), 0)', 'int_test_case_results_banded'],
        },
        'gaps': [],
        'rows': 'results',
    },
    {
        'name': 'test_code_lint',
        'mart': 'fct_test_code_lint',
        'evidence': {
            'cause_id': "'test_case:' || finding_item",
            'cause': "'test case ' || finding_item || ' checks the implementation, not the behaviour'",
        },
        'gate_suites': ['test_code_checks_behaviour'],
        'thresholds': [],
        'requires': ['test_cases.test_code'],
        'measures': {
            'test_cases_with_code': ['count(*)', 'int_test_case_code_linted'],
            'linted_test_cases': ["count(*) filter (where lint_status <> 'unsupported_language')",
                                  'int_test_case_code_linted'],
        },
        'gaps': [
            ['test_cases_with_code = 0', "'test_cases.test_code: NULL or blank on every clean test case'"],
            ['test_cases_with_code > 0 and linted_test_cases = 0', "'test_cases.language: no test case in python, javascript or typescript'"],
        ],
        'rows': 'linted_test_cases',
    },
    {
        'name': 'unicode_coverage',
        'mart': 'fct_string_challenge_unicode_coverage',
        'evidence': {
            'cause': "'tests of ' || challenge_id || ' miss Unicode categories'",
        },
        'gate_suites': ['string_challenges_cover_unicode'],
        'thresholds': [],
        'requires': ['test_cases'],
        'measures': {
            'string_challenges': ['count(*) filter (where ' ~ challenge_fairness.tags_contain('tags', unicode_tag) ~ ')',
                                  'stg_platform__challenges'],
            'test_inputs': ['coalesce(sum(test_inputs), 0)', 'fct_string_challenge_unicode_coverage'],
        },
        'gaps': [['string_challenges = 0', "'no challenge tagged ' || " ~ unicode_tag]],
        'rows': 'test_inputs',
    },
    {
        'name': 'combination_remedies',
        'mart': 'fct_combination_tiers',
        'requires': [],
        'measures': {
            'combinations': ['count(*)', 'int_combination_difficulties_measured'],
            'measured_combinations': ["count(*) filter (where status = 'measured')",
                                      'int_combination_difficulties_measured'],
            'scored_attempts': ['coalesce(sum(scored_attempts), 0)', 'int_combination_difficulties_measured'],
        },
        'gaps': [
            ['combinations = 0', "'challenges.variables: no templated challenge (every variables is {})'"],
            ['combinations > 0 and measured_combinations = 0',
             "'attempts: no template with two or more measurable combinations'"],
        ],
        'rows': 'scored_attempts',
    },
    {
        'name': 'verdict_history',
        'mart': 'fct_challenge_verdict_history',
        'requires': [],
        'measures': {
            'clean_attempts': ["coalesce(sum(attempts) filter (where verdict_window = 'all'), 0)",
                               'int_attempt_scores_counted'],
            'timestamped_attempts': ["coalesce(sum(attempts) filter (where verdict_window <> 'all'), 0)",
                                     'int_attempt_scores_counted'],
        },
        'gaps': [
            ['clean_attempts = 0', "'attempts: no clean attempt'"],
            ['clean_attempts > 0 and timestamped_attempts = 0',
             "'attempts.submitted_at: NULL on every clean attempt'"],
        ],
        'rows': 'timestamped_attempts',
    },
    {
        'name': 'briefing_locale',
        'mart': 'fct_briefing_locale_findings',
        'evidence': {
            'cause': "'briefing of ' || challenge_id || ' assumes a locale'",
            'explains_family_bias': true,
        },
        'gate_suites': ['briefings_locale_neutral'],
        'thresholds': [],
        'requires': ['challenges.briefing_text'],
        'measures': {'briefings': ['count(*) filter (where briefing_text is not null)', 'stg_platform__challenges']},
        'gaps': [],
        'rows': 'briefings',
    },
    {
        'name': 'briefing_domain_assumptions',
        'mart': 'fct_briefing_domain_assumptions',
        'evidence': {
            'cause': "'briefing of ' || challenge_id || ' relies on unstated domain knowledge'",
            'explains_family_bias': true,
        },
        'requires': ['challenges.briefing_text'],
        'measures': {'briefings': ['count(*) filter (where briefing_text is not null)', 'stg_platform__challenges']},
        'gaps': [],
        'rows': 'briefings',
    },
    {
        'name': 'rubric_item_bias',
        'mart': 'fct_rubric_item_bias',
        'evidence': {
            'cause_id': "'rubric_item:' || finding_item",
            'cause': "'rubric item ' || finding_item || ' functions differently by family'",
            'explains_family_bias': true,
        },
        'gate_suites': ['rubric_items_without_large_dif'],
        'thresholds': ['dif_large_d_dif'],
        'requires': ['rubric_items', 'rubric_scores'],
        'measures': {'scores': ['coalesce(sum(passes + failures), 0)', 'int_rubric_scores_banded']},
        'gaps': [],
        'rows': 'scores',
    },
    {
        'name': 'leaderboard_impact',
        'mart': 'fct_leaderboard',
        'gate_suites': ['leaderboard_ranks_not_moved_by_bias'],
        'thresholds': ['leaderboard_allowed_rank_move'],
        'requires': [],
        'measures': {
            'status': ['min(status)', 'int_leaderboard_impact_computed'],
            'reason': ['min(reason)', 'int_leaderboard_impact_computed'],
            'scored_attempts': ['coalesce(sum(scored_attempts), 0)', 'int_agent_challenge_scores_summarised'],
        },
        'gaps': [["status <> 'ok'", 'reason']],
        'rows': "case when status = 'ok' then scored_attempts else 0 end",
    },
    {
        'name': 'rubric_style_lint',
        'mart': 'fct_rubric_style_lint',
        'requires': ['rubric_items'],
        'measures': {'rubric_items': ['count(*)', 'int_keyed__rubric_items']},
        'gaps': [],
        'rows': 'rubric_items',
    },
]) }}
{% endmacro %}


{#
    The required inputs of `detector` (an entry of detector_registry) that this run's raw
    platform lacks, as one sentence ('optional source table absent: test_cases'), or none.
#}
{% macro detector_missing_inputs(detector) %}
{%- set tables = [] -%}
{%- set columns = [] -%}
{%- for input in detector['requires'] -%}
    {%- if '.' in input -%}
        {%- set table_name, column_name = input.split('.') -%}
        {%- if column_name not in challenge_fairness.source_column_names(table_name) -%}
            {%- do columns.append(input) -%}
        {%- endif -%}
    {%- elif not challenge_fairness.source_table_exists(input) -%}
        {%- do tables.append(input) -%}
    {%- endif -%}
{%- endfor -%}
{%- set parts = [] -%}
{%- if tables -%}
    {%- do parts.append('optional source table' ~ ('s' if tables | length > 1 else '')
        ~ ' absent: ' ~ (tables | join(', '))) -%}
{%- endif -%}
{%- if columns -%}
    {%- do parts.append('optional source column' ~ ('s' if columns | length > 1 else '')
        ~ ' absent: ' ~ (columns | join(', '))) -%}
{%- endif -%}
{{ return(parts | join('; ') if parts else none) }}
{% endmacro %}


{#
    The Great Expectations suites the gate runs, in order: the var `fairness_gate_suites`
    when it lists them, else (null, the default) every suite the detectors declare.
#}
{% macro gate_suite_names() %}
{%- set chosen = challenge_fairness.validated_var('fairness_gate_suites') -%}
{%- if chosen is not none -%}
    {{ return(chosen | list) }}
{%- endif -%}
{%- set declared = [] -%}
{%- for detector in challenge_fairness.detector_registry() -%}
    {%- do declared.extend(detector.get('gate_suites', [])) -%}
{%- endfor -%}
{{ return(declared) }}
{% endmacro %}


{# The threshold vars the declared gate suites compare against: name -> value. #}
{% macro gate_thresholds() %}
{%- set thresholds = {} -%}
{%- for detector in challenge_fairness.detector_registry() -%}
    {%- for name in detector.get('thresholds', []) -%}
        {%- do thresholds.update({name: challenge_fairness.validated_var(name)}) -%}
    {%- endfor -%}
{%- endfor -%}
{{ return(thresholds) }}
{% endmacro %}


{# The detectors whose findings int_bias_evidence_unioned unions (those declaring `evidence`). #}
{% macro evidence_producers() %}
{%- set producers = [] -%}
{%- for detector in challenge_fairness.detector_registry() if 'evidence' in detector -%}
    {%- do producers.append(detector) -%}
{%- endfor -%}
{{ return(producers) }}
{% endmacro %}
