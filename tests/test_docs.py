"""The documentation: the tutorial's examples run as one doctest session, every command
has its page, and the site's navigation names every page."""

from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pytest

from sokoban.cli import main

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _blocks(path: Path) -> list[tuple[str, str, int]]:
    """The fenced code blocks of a page: (language, body, line of the first body line)."""
    text = path.read_text()
    return [
        (m.group(1), m.group(2), text.count("\n", 0, m.start(2)) + 1)
        for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M)
    ]


def test_the_tutorial_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every example of the tutorial, in order, in one namespace, in a fresh folder."""
    monkeypatch.chdir(tmp_path)
    path = DOCS / "tutorial.md"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    namespace: dict[str, object] = {"__name__": "tutorial"}
    examples = 0
    for _, body, line in _blocks(path):
        test = parser.get_doctest(body, namespace, "tutorial", str(path), line - 1)
        runner.run(test, clear_globs=False)
        namespace = test.globs  # the next block goes on where this one ended
        examples += len(test.examples)
    result = runner.summarize(verbose=False)
    assert examples > 40 and result.attempted == examples
    assert result.failed == 0, f"{result.failed} tutorial examples failed (see the output)"


def test_every_tutorial_code_block_is_an_example() -> None:
    """A python block with no ``>>>`` would not be run: every one is a pycon session."""
    blocks = _blocks(DOCS / "tutorial.md")
    assert blocks and all(kind == "pycon" and body.startswith(">>> ") for kind, body, _ in blocks)


def test_every_command_has_a_page() -> None:
    pages = {path.stem for path in (DOCS / "cli").glob("*.md")} - {"index"}
    assert pages == set(main.commands)
    nav = (ROOT / "mkdocs.yml").read_text()
    for name in main.commands:
        page = (DOCS / "cli" / f"{name}.md").read_text()
        assert f":prog_name: sokoban {name}" in page and f"cli/{name}.md" in nav


def test_the_navigation_names_every_page() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")]
    missing = [p for p in pages if p not in nav]
    assert missing == []


def test_the_notebook_runs_and_shows_pictures() -> None:
    """docs/tour.ipynb, executed afresh: no cell fails, and it shows the collection, the
    level, the replay and the marks as SVG, the solver result as a table, the plot as PNG."""
    try:
        import nbclient
        import nbformat
    except ImportError:
        reason = "the docs extra (nbclient, ipykernel) is not installed"
        if "docs" in os.environ.get("SOKOBAN_REQUIRE", ""):
            pytest.fail(f"the notebook test is required (SOKOBAN_REQUIRE) but {reason}")
        pytest.skip(reason)
    notebook = nbformat.read(DOCS / "tour.ipynb", as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(DOCS)}}
    )
    client.execute()
    shown: list[str] = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", output
            data = output.get("data", {})
            shown.append(data.get("text/html", "") + data.get("image/svg+xml", ""))
            if "image/png" in data:
                shown.append("PNG")
    text = "\n".join(shown)
    assert text.count("<svg") >= 4 and "<animateTransform" in text
    assert "<table>" in text and "astar" in text and "PNG" in shown


def test_the_api_pages_fence_doctest_examples() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("fences", DOCS / "hooks" / "doctest_fences.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = "Intro.\n\n    >>> x = 1\n    >>> x\n    1\n\nAfter."
    assert module.fence(text).splitlines() == [
        "Intro.",
        "",
        "    ```pycon",
        "    >>> x = 1",
        "    >>> x",
        "    1",
        "    ```",
        "",
        "After.",
    ]


def test_the_readme_says_which_commands_lack_json() -> None:
    """README: "every one but `serve` takes `--json`": the exceptions it names are the
    commands (and subcommands) without the flag."""
    import click

    readme = " ".join((ROOT / "README.md").read_text().split())
    named = re.search(r"every one but ((?:`[a-z -]+`(?:, | and )?)+) takes `--json`", readme)
    assert named is not None
    claimed = set(re.findall(r"`([a-z -]+)`", named.group(1)))
    lacking = set()
    for name, command in main.commands.items():
        commands = command.commands if isinstance(command, click.Group) else {name: command}
        for sub, leaf in commands.items():
            if not any("--json" in p.opts for p in leaf.params):
                lacking.add(name if sub == name else f"{name} {sub}")
    assert lacking == claimed


#: The pictures the tutorial shows, and how the library draws them (the test keeps them
#: up to date: regenerate with ``python tests/test_docs.py``).
TWO_ROWS = "######\n#@$ .#\n# $ .#\n######"


def _tutorial_pictures() -> dict[str, str]:
    from sokoban import Level, render
    from sokoban.marks import marks

    level = Level.from_xsb(TWO_ROWS)
    played = level.replay("RRlldRR")
    return {
        "two-rows.svg": render.svg(level, 32),
        "two-rows-solution.svg": render.animated_svg(played, 32, speed=4),
        "two-rows-marked.svg": render.svg(level, 32, marks(level, ["dead", "path"], played)),
    }


def test_the_tutorial_pictures_are_current() -> None:
    text = (DOCS / "tutorial.md").read_text()
    for name, picture in _tutorial_pictures().items():
        assert (DOCS / "img" / name).read_text() == picture, f"{name}: run tests/test_docs.py"
        assert f"(img/{name})" in text


if __name__ == "__main__":
    for name, picture in _tutorial_pictures().items():
        (DOCS / "img" / name).write_text(picture)


def test_the_readme_quick_start_is_what_ci_runs() -> None:
    """The README's test command and the extras it installs are .ci/run's."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    install = re.search(
        r'pip install -e "\.\[([a-z,]+)\]" && \.venv/bin/(python -m pytest.*)', readme
    )
    assert install is not None
    extras, command = install.groups()
    assert f'pip install --quiet -e ".[{extras}]"' in ci
    assert command.strip() in ci


def test_shell_completion_works_as_documented() -> None:
    """docs/cli/index.md's completion lines: the script the shell evaluates, and an answer."""
    import shutil
    import subprocess
    import sys

    assert "_SOKOBAN_COMPLETE=bash_source sokoban" in (DOCS / "cli" / "index.md").read_text()
    script = shutil.which("sokoban", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the sokoban script is not installed beside this Python")
    env = {**os.environ, "_SOKOBAN_COMPLETE": "bash_source"}
    source = subprocess.run([script], env=env, capture_output=True, text=True, timeout=60)
    assert "_sokoban_completion()" in source.stdout
    env = {**os.environ, "_SOKOBAN_COMPLETE": "bash_complete", "COMP_WORDS": "sokoban ren"}
    env["COMP_CWORD"] = "1"
    answer = subprocess.run([script], env=env, capture_output=True, text=True, timeout=60)
    assert answer.stdout.split() == ["plain,render"]
