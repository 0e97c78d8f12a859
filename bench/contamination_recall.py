"""Recall of the containment candidates (issue 17): planted copies of a file inside larger
texts, by size ratio, found by the Jaccard LSH bands alone and with the raw containment bands.

One dbt build of the contamination models on a small synthetic platform whose challenges
each ship one file copied (verbatim, or with every identifier renamed) into a reference
document ``ratio`` times its size (the rest unrelated generated code), plus unrelated
files. For every plant it reads whether the (file, document) pair became an LSH candidate
through the Jaccard bands (raw or normalised) or through the containment bands, and
whether the challenge was flagged.

    .venv/bin/python bench/contamination_recall.py [--plants-per-case 40] [--seed 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
sys.path.insert(0, str(ROOT / "python_udfs"))

from challenge_fairness.demo import PlatformSpec, generate_platform, write_parquet  # noqa: E402
from challenge_fairness.detectors import contamination_fixtures as fixtures  # noqa: E402

RATIOS = (1, 2, 3, 4, 6)
KINDS = ("verbatim", "renamed")


def make_tables(plants_per_case: int, seed: int, directory: Path) -> pd.DataFrame:
    """Raw tables with the plants; returns the truth (challenge, document, ratio, kind)."""
    cases = [(ratio, kind) for ratio in RATIOS for kind in KINDS]
    challenges = len(cases) * plants_per_case + 20
    platform = generate_platform(
        PlatformSpec(seed=seed, n_attempts=5_000, n_standalone_challenges=challenges)
    )
    write_parquet(platform, str(directory))
    ids = [c for c in platform.tables["challenges"].column("challenge_id").to_pylist()]
    standalone = [c for c in ids if c.startswith("ch-s")]
    rng = np.random.default_rng(seed)
    files, documents, truth = [], [], []
    for index, challenge in enumerate(standalone):
        files.append((challenge, "src/own.py", fixtures.generate_code(rng)))
        if index >= len(cases) * plants_per_case:
            continue
        ratio, kind = cases[index // plants_per_case]
        copied = fixtures.generate_code(rng, functions=2)
        around = fixtures.generate_code(rng, functions=2 * (ratio - 1)) if ratio > 1 else ""
        cut = around.find("\ndef ", len(around) // 2)
        cut = cut if cut > 0 else len(around)
        document = around[:cut] + "\n" + copied + "\n" + around[cut:]
        text = copied if kind == "verbatim" else fixtures.rename_identifiers(copied, rng)
        files.append((challenge, "src/copied.py", text))
        document_id = f"doc-{challenge}"
        documents.append((document_id, document))
        truth.append((challenge, document_id, ratio, kind))
    documents += [(f"doc-other-{i:03d}", fixtures.generate_code(rng)) for i in range(200)]
    pq.write_table(
        pa.Table.from_pandas(
            pd.DataFrame(files, columns=["challenge_id", "file_path", "content"]),
            preserve_index=False,
        ),
        directory / "challenge_files.parquet",
    )
    corpus = pd.DataFrame(documents, columns=["document_id", "content"]).assign(
        source="bench", published_at=pd.Timestamp("2024-01-01").date()
    )
    pq.write_table(
        pa.Table.from_pandas(corpus, preserve_index=False), directory / "reference_corpus.parquet"
    )
    return pd.DataFrame(truth, columns=["challenge_id", "document_id", "ratio", "kind"])


def main() -> None:
    """Build and print recall by (ratio, kind)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plants-per-case", type=int, default=40)
    parser.add_argument("--seed", type=int, default=3)
    arguments = parser.parse_args()
    run_dir = OUT / "contamination_recall"
    shutil.rmtree(run_dir, ignore_errors=True)
    (run_dir / "raw").mkdir(parents=True)
    truth = make_tables(arguments.plants_per_case, arguments.seed, run_dir / "raw")
    database = run_dir / "recall.duckdb"
    command = [
        str(Path(sys.executable).with_name("dbt")), "build",
        "--select", "+fct_challenge_contamination", "--exclude", "resource_type:test",
        "--profiles-dir", ".", "--project-dir", ".",
        "--target-path", str(run_dir / "target"), "--log-path", str(run_dir / "logs"),
        "--vars", json.dumps({"raw_parquet_dir": str(run_dir / "raw")}),
    ]  # fmt: skip
    env = {**os.environ, "CHALLENGE_FAIRNESS_DUCKDB": str(database)}
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    with duckdb.connect(str(database), read_only=True) as connection:
        connection.register("truth", truth)
        found = connection.sql(
            """
            select truth.*,
                coalesce(candidates.raw_shared_bands + candidates.normalised_shared_bands > 0,
                    false) as by_jaccard_bands,
                candidates.document_a is not null as by_any_bands,
                coalesce(marts.is_flagged, false) as is_flagged
            from truth
            left join intermediate.int_code_documents_indexed as files
                on files.challenge_id = truth.challenge_id and files.file_path = 'src/copied.py'
            left join intermediate.int_code_documents_indexed as docs
                on docs.document_id = truth.document_id
            left join intermediate.int_code_candidate_pairs_banded as candidates
                on candidates.document_a = files.document_number
                and candidates.document_b = docs.document_number
            left join main.fct_challenge_contamination as marts
                on marts.challenge_id = truth.challenge_id
            """
        ).df()
        false_flags = connection.execute(
            "select count(*) from main.fct_challenge_contamination where is_flagged "
            "and challenge_id not in (select challenge_id from truth)"
        ).fetchone()
    table = found.groupby(["kind", "ratio"])[["by_jaccard_bands", "by_any_bands", "is_flagged"]]
    print(table.mean().round(3).to_string())
    print(f"flagged challenges without a plant: {false_flags[0] if false_flags else '?'}")


if __name__ == "__main__":
    main()
