"""Shared fixtures of the Python package's tests.

* ``repo``: the repository root; ``fixture_pairs`` (always available) and ``real_pairs`` (the 300
  real pairs of ``../shared``, via ``tests/goldens/corpus.py``, the loader of the Rust golden
  tests: visible SKIP without it, failure under ``FACTPICO_REQUIRE_SHARED=1``).
* ``cli``: runs the ``factpico`` binary (``$FACTPICO_CLI``, else ``target/debug/factpico``) on
  rows and returns its output rows, for the "identical to the CLI" checks.
* ``report``: lines printed in pytest's terminal summary (figures the tests measured).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "tests" / "goldens"))
import corpus  # noqa: E402  (tests/goldens/corpus.py)

_REPORT: List[str] = []


def shared_required() -> bool:
    return os.environ.get("FACTPICO_REQUIRE_SHARED") == "1"


def require_shared(what: str) -> Path:
    root = corpus.shared_root()
    path = root / what
    if not path.exists():
        if shared_required():
            pytest.fail(f"../shared/{what} is missing and FACTPICO_REQUIRE_SHARED=1")
        pytest.skip(f"SKIP: ../shared/{what} not found (set FACTPICO_SHARED or check out shared/ beside the repo)")
    return path


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def fixture_pairs() -> List[Dict[str, str]]:
    return [{"id": i, "source": s, "summary": t} for i, s, t in corpus.fixture_pairs()]


@pytest.fixture(scope="session")
def real_pairs() -> List[Dict[str, str]]:
    require_shared("data/infolossqa/processed/documents.json")
    require_shared("data/shaib2023/single-doc-annotations/single_doc_annotations_1.csv")
    pairs = [{"id": i, "source": s, "summary": t} for i, s, t in corpus.pairs()]
    assert len(pairs) == 300
    return pairs


@pytest.fixture(scope="session")
def minilm() -> Path:
    return require_shared("models/minilm-nli")


class Cli:
    """The ``factpico`` command-line tool."""

    def __init__(self, exe: Path, tmp: Path) -> None:
        self.exe = exe
        self.tmp = tmp
        self.env = dict(os.environ)
        lib = os.environ.get("FACTPICO_CLI_ORT_DYLIB_PATH")
        if lib:
            self.env["ORT_DYLIB_PATH"] = lib

    def score(self, rows: Sequence[Dict[str, Any]], args: Sequence[str], name: str = "in") -> List[Dict[str, Any]]:
        return self.score_with_stdout(rows, args, name)[0]

    def score_with_stdout(self, rows: Sequence[Dict[str, Any]], args: Sequence[str], name: str = "in") -> Tuple[List[Dict[str, Any]], str]:
        """The CLI's rows and its standard output (where ``--explain`` prints)."""
        src = self.tmp / f"{name}.jsonl"
        out = self.tmp / f"{name}.scores.jsonl"
        with open(src, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        cmd = [str(self.exe), "score", str(src), "-o", str(out), "--quiet", "--id-field", "id", *args]
        p = subprocess.run(cmd, env=self.env, capture_output=True, text=True, cwd=self.tmp)
        assert p.returncode == 0, f"{' '.join(cmd)} failed:\n{p.stderr}"
        with open(out, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        # Output schema 3: the provenance is written once beside the rows; attached here to
        # each row as the Python API does (one shared object).
        provenance = json.loads(Path(f"{out}.provenance.json").read_text(encoding="utf-8"))
        for r in rows:
            assert r["run"], r
            r["provenance"] = provenance
        return rows, p.stdout


@pytest.fixture(scope="session")
def cli(tmp_path_factory: pytest.TempPathFactory) -> Cli:
    exe = Path(os.environ.get("FACTPICO_CLI", REPO / "target" / "debug" / "factpico"))
    if not exe.exists():
        pytest.fail(f"factpico CLI not found at {exe} (cargo build -p factpico-cli, or set FACTPICO_CLI)")
    return Cli(exe, tmp_path_factory.mktemp("cli"))


def comparable(row: Dict[str, Any]) -> Dict[str, Any]:
    """A row without what only the CLI knows (the input file's format and field mapping, and
    so the provenance hash ``run``)."""
    r = json.loads(json.dumps(row))
    r.pop("run", None)
    prov = r.get("provenance")
    if isinstance(prov, dict):
        prov.pop("input", None)
    return r


def assert_rows_equal(ours: Sequence[Dict[str, Any]], theirs: Sequence[Dict[str, Any]], what: str) -> None:
    assert len(ours) == len(theirs), f"{what}: {len(ours)} rows vs the CLI's {len(theirs)}"
    for a, b in zip(ours, theirs):
        ca, cb = comparable(a), comparable(b)
        assert ca == cb, f"{what}: row {b.get('id')} differs from the CLI's:\n ours {ca}\n CLI  {cb}"


@pytest.fixture(scope="session")
def report() -> List[str]:
    return _REPORT


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _REPORT:
        terminalreporter.section("factpico measurements")
        for line in _REPORT:
            terminalreporter.write_line(line)


def model_dir(name: str) -> Path:
    return REPO / "fixtures" / "models" / name


#: The model-based configuration that the CLI scores once per session (``align_cli``) and every
#: AlignScore identity test compares with: the tiny AlignScore fixture plus the model-free metrics.
ALIGN = {"alignscore": {"model": str(model_dir("alignscore-tiny"))}}
ALIGN_METRICS = ["alignscore", "rougeL", "fkgl"]
#: Rows of ``align_rows``: the 300 real pairs repeated 7 times with distinct ids and systems
#: (2,100 rows, the Ray test's), then the fixtures (without system).
N_REPEATED = 2100


@pytest.fixture(scope="session")
def align_rows(real_pairs: List[Dict[str, str]], fixture_pairs: List[Dict[str, str]]) -> List[Dict[str, Any]]:
    rows: List[Dict[str, Any]] = [
        {"id": f"{p['id']}#{k}", "source": p["source"], "summary": p["summary"], "system": f"system-{k % 3}"}
        for k in range(N_REPEATED // len(real_pairs))
        for p in real_pairs
    ]
    assert len(rows) == N_REPEATED
    return rows + [{**p, "system": None} for p in fixture_pairs]


@pytest.fixture(scope="session")
def align_cli(cli: "Cli", align_rows: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The CLI's rows for ``align_rows`` with ``ALIGN_METRICS`` (one run, shared by the tests)."""
    return cli.score(align_rows, ["--metrics", ",".join(ALIGN_METRICS), *cli_model_args(ALIGN)], name="align-corpus")


#: ``factpico score`` flag of each ``(ScorerOptions section, field)`` the tests set (the CLI's
#: names, written out here so that a renamed flag or field fails the identity tests).
CLI_FLAGS = {
    ("runtime", "batch_size"): "--batch-size",
    ("runtime", "threads"): "--threads",
    ("runtime", "device"): "--device",
    ("alignscore", "model"): "--alignscore-model",
    ("alignscore", "mode"): "--alignscore-mode",
    ("alignscore", "words_per_chunk"): "--alignscore-words-per-chunk",
    ("alignscore", "max_length"): "--max-length",
    ("dae", "model"): "--dae-model",
    ("dae", "nli_model"): "--dae-nli-model",
    ("dae", "arcs"): "--arcs",
    ("dae", "parser"): "--parser",
    ("dae", "multi_sentence"): "--dae-multi-sentence",
    ("qa", "answers"): "--answers",
    ("qa", "questeval_qg_model"): "--questeval-qg-model",
    ("qa", "questeval_qa_model"): "--questeval-qa-model",
    ("qa", "bertscore_model"): "--bertscore-model",
    ("qa", "qafacteval_qg_model"): "--qafacteval-qg-model",
    ("qa", "lerc_model"): "--lerc-model",
    ("qa", "extractive_qa_model"): "--extractive-qa-model",
}


def cli_model_args(options: Dict[str, Dict[str, Any]]) -> List[str]:
    """``factpico score`` flags for ``Scorer`` option sections (``{"alignscore": {"model": ..}}``)."""
    out: List[str] = []
    for section, fields in options.items():
        for k, v in fields.items():
            out += [CLI_FLAGS[(section, k)], str(v)]
    return out


def first_of(items: Optional[Sequence[Any]]) -> Any:
    return items[0] if items else None
