"""Models by name from the wheel: the ``factpico`` console script (the whole command line in the
native module) and ``factpico.models``, against the tests' Hugging Face hub stand-in
(``target/debug/examples/hub_server``: resolve on 127.0.0.1, LFS storage on 127.0.0.2) serving
the tiny AlignScore Lightning checkpoint under the publisher's repository and file names. The
conversion is torch-free (no torch in this venv), and the pulled model scores as the torch
export of the same checkpoint."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import factpico
from conftest import REPO

CK = REPO / "fixtures" / "checkpoints"


@pytest.fixture()
def hub(tmp_path, monkeypatch):
    exe = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "debug" / "examples" / "hub_server"
    if not exe.exists():
        pytest.fail(f"{exe} is missing: build it with `cargo build -p factpico-models --example hub_server`")
    served = tmp_path / "served"
    (served / "yzha/AlignScore").mkdir(parents=True)
    shutil.copy(CK / "alignscore-tiny/AlignScore-tiny.ckpt", served / "yzha/AlignScore/AlignScore-base.ckpt")
    (served / "FacebookAI/roberta-base").mkdir(parents=True)
    for f in ("config.json", "vocab.json", "merges.txt"):
        shutil.copy(CK / "alignscore-tiny/roberta-tiny" / f, served / "FacebookAI/roberta-base" / f)
    proc = subprocess.Popen([str(exe), str(served)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        endpoint = proc.stdout.readline().strip()
        assert endpoint.startswith("http://127.0.0.1:"), endpoint
        home = tmp_path / "home"
        home.mkdir()
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
        monkeypatch.setenv("FACTPICO_HOME", str(home))
        monkeypatch.delenv("HF_TOKEN", raising=False)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("FACTPICO_MODELS_CATALOGUE", raising=False)
        yield home
    finally:
        proc.kill()
        proc.wait()


def _console_script() -> str:
    exe = Path(sys.executable).parent / "factpico"
    assert exe.exists(), f"the wheel installs the console script {exe}"
    return str(exe)


def test_console_script_lists_pulls_and_scores_like_the_torch_export(hub, tmp_path, fixture_pairs) -> None:
    exe = _console_script()
    listed = subprocess.run([exe, "models", "list"], capture_output=True, text=True, check=True).stdout
    for name in ("alignscore-base", "minicheck-roberta-large", "summac-vitc", "factcg-deberta-v3-large", "dae-xsum"):
        assert name in listed, listed
    # no Python (and so no torch) reachable on PATH: the conversion is Rust's
    env = dict(os.environ, PATH=str(tmp_path))
    p = subprocess.run([exe, "models", "pull", "alignscore-base", "-q"], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert (hub / "models/alignscore-base/model.onnx").exists()
    out = tmp_path / "pulled.jsonl"
    inp = REPO / "fixtures/pairs.jsonl"
    p = subprocess.run([exe, "score", str(inp), "--metrics", "alignscore", "-q", "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    import json

    pulled = [json.loads(l)["scores"]["alignscore"] for l in out.read_text().splitlines()]
    torch = factpico.Scorer(["alignscore"], alignscore={"model": str(CK / "alignscore-tiny/export")}).score(
        [r["source"] for r in fixture_pairs[:12]], [r["summary"] for r in fixture_pairs[:12]]
    )
    assert len(pulled) == 12
    assert max(abs(a - b["scores"]["alignscore"]) for a, b in zip(pulled, torch)) <= 1e-5


def test_models_module_pull_path_and_scorer_by_name(hub, fixture_pairs) -> None:
    names = {m["name"]: m for m in factpico.models.list()}
    assert names["alignscore-base"]["route"] == "rust" and not names["alignscore-base"]["installed"]
    with pytest.raises(FileNotFoundError, match="factpico.models.pull"):
        factpico.models.path("alignscore-base")
    with pytest.raises(ValueError):
        factpico.models.pull("no-such-model")
    path = factpico.models.pull("alignscore-base")
    assert Path(path) == hub / "models/alignscore-base"
    assert factpico.models.path("alignscore-base") == path
    assert {m["name"]: m for m in factpico.models.list()}["alignscore-base"]["installed"]
    src = [r["source"] for r in fixture_pairs[:4]]
    summ = [r["summary"] for r in fixture_pairs[:4]]
    by_default = factpico.Scorer(["alignscore"]).score(src, summ)
    by_name = factpico.Scorer(["alignscore"], alignscore={"model": "alignscore-base"}).score(src, summ)
    torch = factpico.Scorer(["alignscore"], alignscore={"model": str(CK / "alignscore-tiny/export")}).score(src, summ)
    for a, b, c in zip(by_default, by_name, torch):
        assert a["scores"] == b["scores"]
        assert abs(a["scores"]["alignscore"] - c["scores"]["alignscore"]) <= 1e-5


def test_alignscore_dropin_takes_the_references_ckpt_file(hub, fixture_pairs) -> None:
    from factpico.alignscore import AlignScore

    ckpt = CK / "alignscore-tiny/AlignScore-tiny.ckpt"
    contexts = [r["source"] for r in fixture_pairs[:5]]
    claims = [r["summary"] for r in fixture_pairs[:5]]
    torch = AlignScore(ckpt_path=CK / "alignscore-tiny/export").score(contexts, claims)
    # the reference's call: backbone by hub name (its config and tokenizer files come from the
    # hub stand-in), the .ckpt file itself
    by_hub = AlignScore(model="roberta-base", batch_size=4, device="cpu", ckpt_path=str(ckpt), evaluation_mode="nli_sp")
    converted = sorted((hub / "models").glob("alignscore-ckpt-*"))
    assert len(converted) == 1, converted
    stamp = (converted[0] / "model.onnx").stat().st_mtime_ns
    got = by_hub.score(contexts, claims)
    assert max(abs(a - b) for a, b in zip(got, torch)) <= 1e-5, (got, torch)
    # the same file again (backbone as a local directory): converted once, reused
    again = AlignScore(model=str(CK / "alignscore-tiny/roberta-tiny"), ckpt_path=ckpt).score(contexts, claims)
    assert again == got
    assert (converted[0] / "model.onnx").stat().st_mtime_ns == stamp
    # a backbone the hub does not have: a clear error, nothing installed for that checkpoint
    with pytest.raises(RuntimeError, match="config.json"):
        AlignScore(ckpt_path=str(CK / "alignscore-tiny/AlignScore-tiny-hostile.ckpt"), model="no/such-backbone")
    assert len(sorted((hub / "models").glob("alignscore-ckpt-*"))) == 1


# --- the [export] extra: scripts shipped in the wheel, pins of onnx/requirements.txt ---------


def _export_steps_scripts() -> set:
    import json

    cat = json.loads((REPO / "crates/factpico-models/catalogue.json").read_text())
    scripts = {"onnx/quantize.py"}
    for m in cat["models"]:
        if m["route"]["kind"] == "python-export":
            scripts.update(step[0] for step in m["route"]["steps"])
    return scripts


def test_the_wheel_ships_the_export_scripts_the_catalogue_runs() -> None:
    shipped = Path(factpico.models.export_scripts())
    assert shipped == Path(factpico.__file__).parent / "_export"
    for script in sorted(_export_steps_scripts() | {"onnx/common.py", "onnx/export_hf.py"}):
        f = shipped / script
        assert f.is_file() and not f.is_symlink(), f"{f} is shipped as a file"
        assert f.read_bytes() == (REPO / script).read_bytes(), f"{f} is the repository's {script}"


def test_the_export_extra_pins_onnx_requirements() -> None:
    from importlib.metadata import requires

    import re

    def norm(req: str) -> str:  # PEP 503 name normalisation, spaces dropped
        name, _, pin = req.replace(" ", "").partition("==")
        return f"{re.sub(r'[-_.]+', '-', name).lower()}=={pin}"

    marker = re.compile(r"""extra\s*==\s*["']export["']""")
    extra = sorted(norm(r.split(";")[0]) for r in requires("factpico") or [] if marker.search(r))
    pins = sorted(
        norm(l.split("#")[0]) for l in (REPO / "onnx/requirements.txt").read_text().splitlines() if l.split("#")[0].strip()
    )
    assert extra == pins and len(pins) >= 10, (extra, pins)


def test_python_export_pull_without_torch_names_the_extra_and_installs_nothing(hub, tmp_path, monkeypatch) -> None:
    import importlib.util

    if importlib.util.find_spec("torch") is not None:
        pytest.skip("SKIP: torch is installed in this venv; the test needs a Python without the [export] extra")
    monkeypatch.delenv("FACTPICO_EXPORT_SCRIPTS", raising=False)
    monkeypatch.delenv("FACTPICO_EXPORT_PYTHON", raising=False)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("FACTPICO_EXPORT_SCRIPTS", "FACTPICO_EXPORT_PYTHON")}
    for name in ("summac-vitc", "minicheck-deberta-v3-large"):
        p = subprocess.run([_console_script(), "models", "pull", name, "-q"], capture_output=True, text=True, cwd=outside, env=env)
        assert p.returncode != 0
        assert "pip install 'factpico[export]'" in p.stderr, p.stderr
        assert sys.executable in p.stderr, p.stderr  # the Python that lacks torch is named
        assert not (hub / "models" / name).exists()
        assert not (hub / "downloads" / name).exists(), "nothing is downloaded before the export stack is there"
    monkeypatch.chdir(outside)
    with pytest.raises(RuntimeError, match=r"pip install 'factpico\[export\]'"):
        factpico.models.pull("factcg-deberta-v3-large")
    assert not (hub / "models/factcg-deberta-v3-large").exists()
    assert [m["name"] for m in factpico.models.list() if m["installed"]] == []
