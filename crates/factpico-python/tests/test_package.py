"""The installed package: version, typing files, metadata, ONNX Runtime from the wheel."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest

import factpico
from factpico import _native, _ort


def test_version_is_the_crates_version(repo: Path) -> None:
    cargo = (repo / "Cargo.toml").read_text(encoding="utf-8")
    version = re.search(r'\[workspace\.package\][^\[]*?version\s*=\s*"([^"]+)"', cargo, re.S).group(1)
    assert factpico.__version__ == version
    assert importlib.metadata.version("factpico") == version


def test_typing_files_and_abi3_module() -> None:
    pkg = Path(factpico.__file__).parent
    assert (pkg / "py.typed").is_file()
    stub = (pkg / "_native.pyi").read_text(encoding="utf-8")
    # Every public name of the compiled module is in the stub.
    for name in dir(_native):
        if not name.startswith("_") or name == "__version__":
            assert re.search(rf"\b{name}\b", stub), f"_native.{name} is missing from _native.pyi"
    assert ".abi3." in Path(_native.__file__).name, _native.__file__


def test_onnxruntime_dependency_matches_the_rust_pin() -> None:
    requires = importlib.metadata.requires("factpico") or []
    ort = [r for r in requires if r.startswith("onnxruntime") and "extra" not in r]
    assert ort, requires
    lower = re.search(r">=\s*1\.(\d+)", ort[0])
    assert lower and int(lower.group(1)) == _native.MIN_ORT_MINOR, ort
    ort_lib = Path(__file__).resolve().parents[3] / "crates" / "factpico-runtime" / "src" / "ort_lib.rs"
    pinned = re.search(r'pub const ORT_VERSION: &str = "([^"]+)"', ort_lib.read_text(encoding="utf-8")).group(1)
    assert factpico.ORT_VERSION == pinned


def test_model_metric_loads_ort_from_the_wheel(repo: Path) -> None:
    scorer = factpico.Scorer(metrics=["alignscore"], alignscore={"model": repo / "fixtures/models/alignscore-tiny"})
    info = factpico.ort_info()
    assert info is not None and info["source"] == "onnxruntime wheel", info
    import importlib.util

    wheel_dir = Path(list(importlib.util.find_spec("onnxruntime").submodule_search_locations)[0])
    assert Path(info["path"]).parent == wheel_dir / "capi"
    assert info["version"] == importlib.metadata.version("onnxruntime")
    assert info["version"] == factpico.ORT_VERSION  # the test venv pins the tested version
    assert _native.loaded_ort() == info["path"]
    assert scorer.score(["The drug lowered blood pressure."], ["Blood pressure fell."])[0]["scores"]["alignscore"] is not None


def _fake_onnxruntime(root: Path, version: str, lib: bool = True) -> Path:
    pkg = root / "onnxruntime"
    (pkg / "capi").mkdir(parents=True)
    (pkg / "__init__.py").write_text(f'__version__ = "{version}"\n')
    if lib:
        (pkg / "capi" / f"libonnxruntime.so.{version}").write_bytes(b"\x7fELF" + b"\0" * 60)
    return root


@pytest.mark.parametrize(
    "version, lib, message",
    [
        ("1.20.0", True, "needs ONNX Runtime 1.31 or newer"),
        ("2.0.0", True, "needs ONNX Runtime 1.31 or newer"),
        ("1.32.0", False, "has no libonnxruntime shared library"),
    ],
)
def test_onnxruntime_mismatch_is_a_clear_error(tmp_path: Path, version: str, lib: bool, message: str) -> None:
    # In a fresh interpreter (ONNX Runtime loads once per process) whose onnxruntime is a fake.
    root = _fake_onnxruntime(tmp_path, version, lib)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import factpico\n"
        "try:\n"
        "    factpico.Scorer(metrics=['alignscore'], alignscore={'model': sys.argv[2]})\n"
        "except ImportError as e:\n"
        "    print('IMPORTERROR', e)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, str(root), str(Path(__file__).resolve().parents[3] / "fixtures/models/alignscore-tiny")],
        capture_output=True, text=True, env={k: v for k, v in __import__("os").environ.items() if k != "ORT_DYLIB_PATH"},
    )
    assert "IMPORTERROR" in p.stdout, p.stdout + p.stderr
    assert message in p.stdout and "pip install" in p.stdout, p.stdout


def test_missing_onnxruntime_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORT_DYLIB_PATH", raising=False)
    monkeypatch.setattr(_ort.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match=r"pip install 'onnxruntime>=1\.31,<2'"):
        _ort.find_library()


def test_model_free_scorer_needs_no_onnxruntime_load() -> None:
    # In a fresh interpreter: rougeL/fkgl never load ONNX Runtime.
    code = "import factpico, factpico._native as n; factpico.Scorer().score(['a b c.'], ['a b.']); print(n.loaded_ort())"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "None", p.stdout + p.stderr


def test_registry_and_default_options() -> None:
    names = [m["name"] for m in factpico.metrics()]
    assert names[:3] == ["rougeL", "fkgl", "fre"] and "alignscore" in names
    opts = factpico.default_options()
    assert opts["metrics"] == ["rougeL", "fkgl"] and opts["rouge"] == {"use_stemmer": True}
    col = {c["name"]: c for m in factpico.metrics() for c in m["columns"]}
    assert col["alignscore"]["min"] == 0.0 and col["alignscore"]["direction"] == "higher_is_better"
