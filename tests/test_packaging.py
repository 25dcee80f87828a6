"""cardc installs like a real package (issue 11.2).

A wheel is built from this checkout and installed into a fresh virtual environment; the installed `cardc` then
checks, builds and computes odds from a folder outside the checkout, and builds the same bytes as the checkout.
The dependencies come from the environment running the tests (a `.pth` file), never the checkout's own code.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "export"
# Folders mapped into the package and the package each becomes.
SOURCES = {"compiler": "cardc", "dsl": "cardc.dsl"}
NOT_SHIPPED = ("*.md",)  # developer notes next to the code


def _setuptools() -> dict[str, object]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return data["tool"]["setuptools"]  # type: ignore[no-any-return]


def _source_files() -> dict[str, Path]:
    """Wheel path -> source file, for every file the package should ship."""
    out: dict[str, Path] = {}
    for folder, package in SOURCES.items():
        base = ROOT / folder
        for p in sorted(base.rglob("*")):
            rel = p.relative_to(base)
            if not p.is_file() or "__pycache__" in rel.parts or p.suffix == ".pyc":
                continue
            if any(fnmatch.fnmatch(p.name, pat) for pat in NOT_SHIPPED):
                continue
            out[package.replace(".", "/") + "/" + rel.as_posix()] = p
    return out


def test_every_package_folder_is_listed_in_pyproject() -> None:
    """A new subpackage under compiler/ that pyproject does not list would be left out of every install."""
    settings = _setuptools()
    listed = set(settings["packages"])  # type: ignore[call-overload]
    found = set()
    for folder, package in SOURCES.items():
        for init in (ROOT / folder).rglob("*.py"):
            rel = init.parent.relative_to(ROOT / folder)
            if "__pycache__" not in rel.parts:
                found.add(".".join([package, *rel.parts]))
    assert found - listed == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == set(), "pyproject lists packages that have no source folder"
    assert settings["package-dir"] == {"cardc": "compiler", "cardc.dsl": "dsl"}


def test_every_data_file_is_matched_by_package_data() -> None:
    data: dict[str, list[str]] = _setuptools()["package-data"]  # type: ignore[assignment]
    unmatched = []
    for wheel_path, source in _source_files().items():
        if source.suffix == ".py":
            continue
        folder, _, name = wheel_path.rpartition("/")
        package = folder.replace("/", ".")
        owner = max((p for p in data if package == p or package.startswith(p + ".")), key=len, default=None)
        rel = wheel_path[len(owner.replace(".", "/")) + 1:] if owner else name
        if owner is None or not any(fnmatch.fnmatch(rel, pat) for pat in data[owner]):
            unmatched.append(str(source.relative_to(ROOT)))
    assert unmatched == [], "add these files to [tool.setuptools.package-data] in pyproject.toml"


def _tree(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _clean_copy(dest: Path) -> Path:
    """The checkout's tracked files (git ls-files) outside generated/: setuptools reuses a `build/lib` it
    finds, so a wheel built in a used checkout could carry modules deleted since."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True,
                                timeout=60).stdout.decode().split("\0")
    except (OSError, subprocess.SubprocessError):  # not a git checkout: everything but what builds leave
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns("build", "dist", "*.egg-info", "generated",
                                                                  ".git", "__pycache__"))
        return dest
    for rel in listed:
        src = ROOT / rel
        if rel and not rel.startswith("generated/") and src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with cardc installed from a wheel of this checkout; returns its bin folder."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = _clean_copy(tmp / "source")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"),
                           str(source)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp / "dist").glob("cardc-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(set(_source_files()) - names)
    assert missing == [], f"the wheel lacks {missing}"
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # The dependencies of the environment running the tests; a .pth line only adds a path, so the checkout's
    # editable-install hook (itself a .pth file there) is not run and cannot leak the checkout's code in.
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "deps.pth").write_text("".join(f"{d}\n" for d in sorted(deps)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                           "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return venv / "bin"


def _in(bin_dir: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(bin_dir / argv[0]), *argv[1:]], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env)


def test_the_installed_copy_is_imported(installed: Path, tmp_path: Path) -> None:
    done = _in(installed, tmp_path, "python", "-c", "import cardc, cardc.dsl; print(cardc.__file__)")
    assert done.returncode == 0, done.stderr
    where = Path(done.stdout.strip())
    assert where.is_relative_to(installed.parent) and not where.is_relative_to(ROOT)


def test_installed_cardc_checks_builds_and_computes_odds(installed: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    shutil.copytree(ROOT / "content", work / "content")
    shutil.copytree(FIXTURE, work / "tavern")
    done = _in(installed, work, "cardc", "check")
    assert done.returncode == 0 and "ok:" in done.stderr, done.stderr
    done = _in(installed, work, "cardc", "odds", "--game", "karak", "--hero", "horan", "--vs", "dragon")
    assert done.returncode == 0, done.stderr
    assert "Horan" in done.stdout and "loss" in done.stdout
    args = ["build", "tavern", "--out", "out", "--png", "false", "--tts-images", "false"]
    done = _in(installed, work, "cardc", *args)
    assert done.returncode == 0, done.stderr
    from_wheel = _outputs(work / "out")
    assert any(k.startswith("print/") for k in from_wheel) and any(k.startswith("reference/") for k in from_wheel)
    # the checkout builds the same bytes: nothing the build reads is missing from the wheel
    done = subprocess.run([sys.executable, "-m", "cardc", *args], cwd=work, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert _outputs(work / "out") == from_wheel


def _outputs(out: Path) -> dict[str, str]:
    """The build's outputs: the incremental cache's index names the compiler that wrote it, so it is left out."""
    return {k: v for k, v in _tree(out).items() if not k.startswith(".cardc-cache/")}


def test_developer_commands_refuse_on_an_installed_copy(installed: Path, tmp_path: Path) -> None:
    shutil.copytree(FIXTURE, tmp_path / "content")
    site = Path(_in(installed, tmp_path, "python", "-c", "import cardc; print(cardc.__file__)").stdout.strip())
    before = _tree(site.parent)
    for argv in (["cardc", "schemas"], ["cardc", "docs"], ["cardc", "docs", "--check"]):
        done = _in(installed, tmp_path, *argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert "source checkout" in done.stderr
    assert _tree(site.parent) == before
    # writing the schemas somewhere else is fine
    done = _in(installed, tmp_path, "cardc", "schemas", "--out", "schemas")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "schemas" / "effects.schema.json").is_file()
