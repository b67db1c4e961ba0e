"""Tests for tools/check_docs.py: a page's code block drifting from the test
that runs it, a broken link, a long README each fail the check."""

from pathlib import Path

import pytest

import check_docs

REPO = Path(__file__).resolve().parents[2]

README = """# project

```sh
scripts/demo    # the demo
scripts/test    # the tests
```

See [the guide](docs/guide/a.md).
"""

GUIDE = """# A guide

```cpp
fp::Tensor t = fp::ones({2});   // two ones
t += 1;
```
"""

TEST_SOURCE = """TEST(Guide, A) {
  fp::Tensor t = fp::ones({2});  // two ones
  t += 1;
  EXPECT_EQ(t.numel(), 2);
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "run").write_text('exec "$(dirname "$0")/../scripts/test"\n')
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "docs" / "guide" / "a.md").write_text(GUIDE)
    (tmp_path / "tests" / "docs").mkdir(parents=True)
    (tmp_path / "tests" / "docs" / "test_guide_a.cpp").write_text(TEST_SOURCE)
    (tmp_path / "tests" / "CMakeLists.txt").write_text("fp_add_gtest(test_docs docs/test_guide_a.cpp)\n")
    return tmp_path


def test_a_block_in_a_test_passes_whatever_its_layout(repo):
    assert check_docs.check(repo) == []


def test_a_block_that_drifted_from_its_test_fails(repo):
    guide = repo / "docs" / "guide" / "a.md"
    guide.write_text(GUIDE.replace("t += 1;", "t += 2;"))
    (problem,) = check_docs.check(repo)
    assert problem.startswith("docs/guide/a.md:3: this ```cpp block is in no file the tests run")


def test_a_block_marked_as_not_compiled_is_left_alone(repo):
    guide = repo / "docs" / "guide" / "a.md"
    guide.write_text(GUIDE.replace("```cpp", "<!-- not compiled: it shows an error -->\n```cpp")
                     .replace("t += 1;", "t.no_such_method();"))
    assert check_docs.check(repo) == []


def test_a_test_source_no_program_builds_fails(repo):
    (repo / "tests" / "CMakeLists.txt").write_text("fp_add_gtest(test_docs docs/other.cpp)\n")
    assert check_docs.check(repo) == [
        "tests/docs/test_guide_a.cpp: no test program is built from it (add it to a program in "
        "tests/CMakeLists.txt)"]


def test_a_link_to_nothing_fails(repo):
    (repo / "docs" / "guide" / "a.md").unlink()
    assert "README.md:8: the link to docs/guide/a.md leads nowhere" in check_docs.check(repo)


def test_a_long_readme_or_one_without_the_two_commands_fails(repo):
    (repo / "README.md").write_text(README + "line\n" * check_docs.README_LINES)
    assert check_docs.check(repo)[0].startswith("README.md: 20")
    (repo / "README.md").write_text(README.replace("scripts/demo    # the demo\n", ""))
    assert check_docs.check(repo)[0].startswith("README.md: must open with")


def test_ci_must_run_the_readmes_test_command(repo):
    (repo / ".ci" / "run").write_text("exec make check\n")
    assert check_docs.check(repo) == [
        "README.md: .ci/run does not run the README's test command (scripts/test)"]


def test_the_repository_passes():
    assert check_docs.check(REPO) == []
