{#
    The source contract: the columns staging reads from each raw platform table, and which
    of them a platform may leave out (optional columns). `source_rows` selects these
    columns and nothing else, so an extra raw column (even one named like an internal
    column such as `source_row_number`, `duplicate_kind` or `variables_text`) never reaches
    staging. Keep in step with models/staging/platform/_platform__sources.yml.
#}
{% macro platform_source_columns() -%}
    {{ return({
        'attempts': {'required': ['attempt_id', 'challenge_id', 'agent_id', 'score', 'submitted_at'],
                     'optional': ['approach']},
        'challenges': {'required': ['challenge_id', 'template_id', 'variables', 'briefing_style',
                                    'experiment_id', 'experiment_arm', 'tags'],
                       'optional': ['briefing_text']},
        'agents': {'required': ['agent_id', 'model_id'], 'optional': []},
        'models': {'required': ['model_id', 'model_family', 'training_cutoff'], 'optional': []},
        'test_cases': {'required': ['test_case_id', 'challenge_id', 'input_text'],
                       'optional': ['test_code', 'language']},
        'test_results': {'required': ['attempt_id', 'test_case_id', 'passed'], 'optional': []},
        'challenge_files': {'required': ['challenge_id', 'file_path', 'content'], 'optional': []},
        'reference_corpus': {'required': ['document_id', 'source', 'content'],
                             'optional': ['published_at']},
        'rubric_items': {'required': ['rubric_item_id', 'challenge_id', 'description', 'max_points'],
                         'optional': []},
        'rubric_scores': {'required': ['attempt_id', 'rubric_item_id', 'points'], 'optional': []},
    }) }}
{%- endmacro %}
