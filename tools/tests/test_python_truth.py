"""Tests for tools/python_truth.py.

Why this file is long: the tests of python_truth.py, one per behaviour.
"""

import contextlib
import io
import math
import os
import shutil
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import python_truth as pt  # first: it imports torch without the NumPy warning
import torch

TOOL = Path(__file__).resolve().parents[1] / "python_truth.py"


# -- helpers -----------------------------------------------------------------

def write_cpp(tmp_path: Path, text: str, name: str = "test_sample.cpp") -> Path:
    path = tmp_path / name
    path.write_bytes(textwrap.dedent(text).encode("utf-8"))
    return path


def substitute_text(tmp_path: Path, text: str, patterns=None) -> str:
    path = write_cpp(tmp_path, text)
    return pt.substitute(pt.read_source(str(path)), patterns)


def run_tool(*args, cwd=None) -> subprocess.CompletedProcess:
    """The command line `python_truth.py ARGS`, run in this process: a new
    Python would spend two seconds importing torch for every call (most of this
    file's time). run_tool_process runs it as a program."""
    argv = list(map(str, args))
    stdout, stderr = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                returncode = pt.main(argv)
            except SystemExit as exit_request:  # argparse's refusals
                returncode = exit_request.code if isinstance(exit_request.code, int) else 2
    finally:
        os.chdir(previous)
    return subprocess.CompletedProcess([str(TOOL), *argv], returncode, stdout.getvalue(),
                                       stderr.getvalue())


def run_tool_process(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOL), *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def one_test(body: str) -> str:
    """A C++ file with a single TEST whose body is `body`."""
    return "TEST(Suite, Case) {\n" + textwrap.dedent(body) + "}\n"


# -- rendering of values -------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    (True, "true"),
    (False, "false"),
    (0, "0"),
    (-42, "-42"),
    (2**63 - 1, "9223372036854775807"),
    (-(2**63), "(-9223372036854775807LL - 1)"),
    (-(2**63) + 1, "-9223372036854775807"),
    (2**63, "9223372036854775808ULL"),
    (2**64 - 1, "18446744073709551615ULL"),
])
def test_render_bool_and_int(value, expected):
    assert pt.render(value) == expected


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1])
def test_render_int_out_of_64_bits_is_an_error(value):
    with pytest.raises(pt.RenderError, match="64 bits"):
        pt.render(value)


@pytest.mark.parametrize("value, expected", [
    (0.1, "0.1"),
    (1e-5, "1e-05"),
    (1e20, "1e+20"),
    (-0.0, "-0.0"),
    (1.0, "1.0"),
    (-2.5, "-2.5"),
    (math.inf, "std::numeric_limits<double>::infinity()"),
    (-math.inf, "-std::numeric_limits<double>::infinity()"),
    (math.nan, "std::numeric_limits<double>::quiet_NaN()"),
])
def test_render_float(value, expected):
    assert pt.render(value) == expected


def test_render_float32_values_round_trip_as_float32():
    values = torch.tensor([0.2015]).tolist()
    assert pt.render(values) == "{0.20149999856948853}"
    # Parsing the literal and narrowing to float gives the same float32 bits.
    literal = float(pt.render_elements(values))
    assert struct.pack("<f", literal) == struct.pack("<f", 0.2015)


def test_render_complex():
    assert pt.render(complex(1.5, -2)) == "std::complex<double>(1.5, -2.0)"
    assert (pt.render(complex(0, math.inf))
            == "std::complex<double>(0.0, std::numeric_limits<double>::infinity())")


@pytest.mark.parametrize("value, expected", [
    ('say "hi"', r'"say \"hi\""'),
    ("a\nb\tc\rd", r'"a\nb\tc\rd"'),
    ("back\\slash", r'"back\\slash"'),
    ("bell\x07A", r'"bell\007A"'),
    ("caf\u00e9 \u03c0", '"caf\u00e9 \u03c0"'),
    ("", '""'),
])
def test_render_string(value, expected):
    assert pt.render(value) == expected


DTYPE_CASES = [
    ("bool", "Bool"), ("uint8", "U8"), ("uint16", "U16"), ("uint32", "U32"),
    ("uint64", "U64"), ("int8", "I8"), ("int16", "I16"), ("int32", "I32"),
    ("int64", "I64"), ("float16", "F16"), ("bfloat16", "BF16"),
    ("float32", "F32"), ("float64", "F64"), ("complex32", "C32"),
    ("complex64", "C64"), ("complex128", "C128"),
    ("float8_e4m3fn", "F8_E4M3FN"), ("float8_e5m2", "F8_E5M2"),
    ("float8_e4m3fnuz", "F8_E4M3FNUZ"), ("float8_e5m2fnuz", "F8_E5M2FNUZ"),
    ("float8_e8m0fnu", "F8_E8M0FNU"), ("float4_e2m1fn_x2", "F4_E2M1FN_X2"),
]


@pytest.mark.parametrize("torch_name, cpp_name", DTYPE_CASES)
def test_render_dtype(torch_name, cpp_name):
    dtype = getattr(torch, torch_name, None)
    if dtype is None:
        pytest.skip(f"torch.{torch_name} is not in this torch build")
    assert pt.render(dtype) == f"fp::DType::{cpp_name}"


def test_render_dtype_aliases():
    assert pt.render(torch.float) == "fp::DType::F32"
    assert pt.render(torch.long) == "fp::DType::I64"


def test_render_unmapped_dtype_is_an_error():
    with pytest.raises(pt.RenderError, match="no fp::DType"):
        pt.render(torch.quint8)


def test_render_device():
    assert pt.render(torch.device("cpu")) == 'fp::Device::parse("cpu")'
    assert pt.render(torch.device("cuda", 1)) == 'fp::Device::parse("cuda:1")'


def test_render_sequences():
    assert pt.render([1, 2, 3]) == "{1, 2, 3}"
    assert pt.render([[1, 2], [3, 4]]) == "{{1, 2}, {3, 4}}"
    assert pt.render((1.5, True)) == "{1.5, true}"
    assert pt.render(torch.Size([2, 3])) == "{2, 3}"
    assert pt.render([]) == "{}"
    assert pt.render_elements([[1, 2], [3, 4]]) == "{1, 2}, {3, 4}"


def test_render_tensors():
    assert pt.render(torch.tensor([[1.0, 2.5], [3.0, -4.0]])) == "{{1.0, 2.5}, {3.0, -4.0}}"
    assert pt.render(torch.tensor([True, False])) == "{true, false}"
    assert pt.render(torch.tensor([1, 2], dtype=torch.int64)) == "{1, 2}"
    assert pt.render(torch.tensor(7)) == "7"
    assert pt.render(torch.tensor(0.5)) == "0.5"
    assert pt.render_elements(torch.tensor(0.5)) == "0.5"


def test_render_unsupported_type_names_marker_line_and_type(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        EXPECT_EQ(a, 0);
        EXPECT_EQ(b, 0);  // #PYTHON {"key": 1}
    """))
    with pytest.raises(pt.TruthError) as info:
        pt.substitute(pt.read_source(str(path)))
    assert info.value.line == 3
    assert f"{path}:3:" in str(info.value)
    assert "builtins.dict" in str(info.value)


# -- substitution targets ------------------------------------------------------

def test_conversion_example(tmp_path):
    result = substitute_text(tmp_path, """\
        TEST(Functional, Conv2d) {
          /*
          #|PYTHON
          d = torch.tensor(list(range(1, 17)), dtype=torch.float).reshape([1, 1, 4, 4])
          w = torch.tensor([[[1.0, 2.0], [3.0, 4.0]]]).unsqueeze(0)
          r = torch.nn.functional.conv2d(d, w)
          */
          auto r = fp::functional::conv2d(d, w);
          EXPECT_EQ(r.sizes(), (std::vector<int64_t>{0}));  // #PYTHON list(r.shape)
          const std::vector<float> expected = {0.0};   // #PYTHON r.flatten()[:3].tolist()
          EXPECT_EQ(r.dtype(), fp::DType::Bool);  // #PYTHON r.dtype
          EXPECT_NEAR(x, 0.5, 1e-6);  // no marker: untouched
        }
    """)
    lines = result.splitlines()
    assert lines[8] == ("  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{1, 1, 3, 3}));"
                        "  // #PYTHON list(r.shape)")
    assert lines[9] == ("  const std::vector<float> expected = {44.0, 54.0, 64.0};"
                        "   // #PYTHON r.flatten()[:3].tolist()")
    assert lines[10] == "  EXPECT_EQ(r.dtype(), fp::DType::F32);  // #PYTHON r.dtype"
    assert lines[11] == "  EXPECT_NEAR(x, 0.5, 1e-6);  // no marker: untouched"


def test_multi_line_statement(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(
            compute(1,
                    2),
            0);  // #PYTHON 2 + 3
    """))
    assert "\n    5);  // #PYTHON 2 + 3\n" in result
    assert "\n    compute(1,\n            2),\n" in result


def test_multi_line_brace_group_is_replaced_inside_the_braces(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        const std::vector<double> v = {
            0.0,
            0.0,
        };  // #PYTHON [1.5, 2.5]
    """))
    assert "const std::vector<double> v = {1.5, 2.5};  // #PYTHON" in result


def test_brace_group_inside_parentheses(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(t.sizes(), (std::vector<int64_t>{9, 9}));  // #PYTHON [2, 3, 4]
    """))
    assert "EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3, 4}));" in result


def test_nested_list_into_brace_group(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        const std::vector<std::vector<int>> m = {};  // #PYTHON [[1, 2], [3, 4]]
    """))
    assert "const std::vector<std::vector<int>> m = {{1, 2}, {3, 4}};" in result


@pytest.mark.parametrize("declaration, expected", [
    ("const float x = 0.0f;", "const float x = 0.25f;"),
    ("constexpr double x = 0;", "constexpr double x = 0.25;"),
    ("static const float x = 1;", "static const float x = 0.25;"),
    ("auto x = f(1, 2);", "auto x = 0.25;"),
    ("float x{0};", "float x{0.25};"),
    ("std::vector<float> x{};", "std::vector<float> x{0.25};"),
    ("const float x[] = {0};", "const float x[] = {0.25};"),
    ("const float* x = nullptr;", "const float* x = 0.25;"),
])
def test_declarations(tmp_path, declaration, expected):
    result = substitute_text(tmp_path, one_test(f"{declaration}  // #PYTHON 0.25\n"))
    assert f"{expected}  // #PYTHON 0.25" in result


def test_nested_braces_already_in_target_are_replaced_as_a_whole(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(m, (std::vector<std::vector<int>>{{0, 0}, {0}}));  // #PYTHON [[1, 2], [3]]
    """))
    assert "EXPECT_EQ(m, (std::vector<std::vector<int>>{{1, 2}, {3}}));" in result


def test_list_into_target_without_braces_gets_braces(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        const std::vector<int> v = make();  // #PYTHON [1, 2]
    """))
    assert "const std::vector<int> v = {1, 2};" in result


def test_brace_list_declaration_with_equals_and_braces(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        const std::vector<int64_t> a = {7};  // #PYTHON (1, 2)
        std::vector<int64_t> b{7};  // #PYTHON torch.Size([3])
    """))
    assert "const std::vector<int64_t> a = {1, 2};" in result
    assert "std::vector<int64_t> b{3};" in result


def test_commas_in_template_arguments_are_not_argument_separators(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(lookup(std::map<int, int>{{1, 2}}, 1), 0);  // #PYTHON 2
        EXPECT_EQ(std::pair<int, int>(1, 2).first, 0);  // #PYTHON 1
        EXPECT_EQ(p, (std::pair<int, int>{0, 0}));  // #PYTHON [3, 4]
        EXPECT_EQ(v, convert<float, int>(0));  // #PYTHON 5
        const std::map<int, std::vector<int>> m = {};  // #PYTHON [(1, [2, 3])]
    """))
    assert "EXPECT_EQ(v, 5);" in result
    assert "const std::map<int, std::vector<int>> m = {{1, {2, 3}}};" in result
    assert "EXPECT_EQ(lookup(std::map<int, int>{{1, 2}}, 1), 2);" in result
    assert "EXPECT_EQ(std::pair<int, int>(1, 2).first, 1);" in result
    assert "EXPECT_EQ(p, (std::pair<int, int>{3, 4}));" in result


def test_less_than_comparison_is_not_a_template(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(a < b, false);  // #PYTHON 1 < 2
        EXPECT_EQ(f(1) < 2, x > 3);  // #PYTHON True
    """))
    assert "EXPECT_EQ(a < b, true);" in result
    assert "EXPECT_EQ(f(1) < 2, true);" in result


def test_commas_in_strings_chars_comments_and_raw_strings(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(join("a, b", ','), "");  // #PYTHON "a, b".replace(" ", "")
        EXPECT_EQ(f(R"x(a, ")b)x"), 0);  // #PYTHON 11
        EXPECT_EQ(g(1 /* one, two */, "\\"),"), 0);  // #PYTHON 12
        EXPECT_EQ(h('\\'', ','), 0);  // #PYTHON 13
    """))
    assert 'EXPECT_EQ(join("a, b", \',\'), "a,b");' in result
    assert 'EXPECT_EQ(f(R"x(a, ")b)x"), 11);' in result
    assert 'EXPECT_EQ(g(1 /* one, two */, "\\"),"), 12);' in result
    assert "EXPECT_EQ(h('\\'', ','), 13);" in result


def test_streamed_failure_message_is_kept(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(n, 0) << "a, b";  // #PYTHON 4
    """))
    assert 'EXPECT_EQ(n, 4) << "a, b";' in result


def test_marker_on_the_next_line(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        EXPECT_EQ(a, 0);  // a regular comment
        // #PYTHON 6 * 7
        EXPECT_EQ(b, 0);
    """))
    assert "EXPECT_EQ(a, 42);  // a regular comment" in result
    assert "EXPECT_EQ(b, 0);" in result


def test_marker_after_blank_line_is_an_error(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        EXPECT_EQ(a, 0);

        // #PYTHON 1
    """))
    with pytest.raises(pt.TruthError) as info:
        pt.read_source(str(path))
    assert info.value.line == 4


def test_statement_after_block_statement_and_lambda(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        if (ready) {
          prepare();
        }
        EXPECT_EQ(a, 0);  // #PYTHON 1
        auto f = [](int v) { return v; };
        EXPECT_EQ(f(2), 0);  // #PYTHON 2
        const auto g = [&] { return 3; }();  // #PYTHON 3
    """))
    assert "EXPECT_EQ(a, 1);" in result
    assert "EXPECT_EQ(f(2), 2);" in result
    # The lambda body is the only brace group, so it is what gets filled:
    assert "const auto g = [&] {3}();" in result


def test_statement_under_control_heads_and_labels(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        if (ready) EXPECT_EQ(a, 0);  // #PYTHON 1
        else EXPECT_EQ(b, 0);  // #PYTHON 2
        for (int i = 0; i < 2; ++i) EXPECT_EQ(c, 0);  // #PYTHON 3
        switch (k) {
          case 1: EXPECT_EQ(d, 0);  // #PYTHON 4
        }
    """))
    for name, value in zip("abcd", "1234"):
        assert f"EXPECT_EQ({name}, {value});" in result


def test_ambiguous_brace_groups_are_an_error(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        EXPECT_EQ(a, f({1}, {2}));  // #PYTHON [1]
    """))
    with pytest.raises(pt.TruthError, match="several brace groups"):
        pt.read_source(str(path))


def test_only_targeted_bytes_change_and_crlf_is_kept(tmp_path):
    text = ("// header\r\n#include <x>\r\n"
            "TEST(S, T) {\r\n"
            "  EXPECT_EQ(a,   0);\t// #PYTHON 5\r\n"
            "  auto s = \"caf\u00e9\";\r\n"
            "}\r\n")
    path = tmp_path / "crlf.cpp"
    path.write_bytes(text.encode("utf-8"))
    result = pt.substitute(pt.read_source(str(path)))
    assert result == text.replace("EXPECT_EQ(a,   0);", "EXPECT_EQ(a,   5);")


@pytest.mark.parametrize("old, value, new", [
    ("0u", 2584, "2584u"),
    ("7ull", 2**63, "9223372036854775808ULL"),     # already suffixed: left alone
    ("0ul", -3, "-3"),                             # no unsigned negatives
    ("0l", -3, "-3l"),
    ("0.0f", 0.25, "0.25f"),
    ("0.0f", 2, "2"),                              # `2f` would not compile
    ("0x1Fu", 31, "31u"),
    ("(std::vector<float>{0.5f, 1.5f})", [1e-05, 2.5], "(std::vector<float>{1e-05f, 2.5f})"),
    ("(std::vector<float>{0.5f, 1.5})", [1.0], "(std::vector<float>{1.0})"),  # mixed: none
    ("(std::vector<size_t>{1u, 2u})", [3, 4], "(std::vector<size_t>{3u, 4u})"),
])
def test_uniform_literal_suffix_is_kept(tmp_path, old, value, new):
    result = substitute_text(tmp_path, one_test(f"EXPECT_EQ(x, {old});  // #PYTHON {value!r}\n"))
    assert f"EXPECT_EQ(x, {new});" in result


def test_suffixed_literal_that_matches_is_not_stale(tmp_path):
    text = one_test("EXPECT_EQ(n, 2584u);  // #PYTHON 2584\n")
    assert substitute_text(tmp_path, text) == text


def test_unchanged_values_keep_their_formatting(tmp_path):
    text = one_test("""\
        EXPECT_EQ(a, (std::vector<int>{
                         1,
                         2,
                     }));  // #PYTHON [1, 2]
    """)
    assert substitute_text(tmp_path, text) == text


def test_star_prefixed_block(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        /*
         * #|PYTHON
         * x = [1,
         *      2]
         */
        EXPECT_EQ(v, 0);  // #PYTHON sum(x)
    """))
    assert "EXPECT_EQ(v, 3);" in result


# -- scoping and execution -----------------------------------------------------

TWO_TESTS = """\
    TEST(Math, Add) {
      // a comment that mentions #PYTHON is not a marker
      EXPECT_EQ(add(1, 2), 0);  // #PYTHON 1 + 2
    }

    TEST_F(Fixture, Mul) {
      EXPECT_EQ(mul(2, 3), 0);  // #PYTHON 2 * 3
    }
"""


@pytest.mark.parametrize("pattern, add_value, mul_value", [
    ("Math.Add", "3", "0"),
    ("Add", "3", "0"),
    ("Fixture.*", "0", "6"),
    ("M*", "3", "6"),
    ("Nothing", "0", "0"),
])
def test_test_case_filter(tmp_path, pattern, add_value, mul_value):
    result = substitute_text(tmp_path, TWO_TESTS, [pattern])
    assert f"EXPECT_EQ(add(1, 2), {add_value});" in result
    assert f"EXPECT_EQ(mul(2, 3), {mul_value});" in result


def test_test_case_filter_on_command_line(tmp_path):
    path = write_cpp(tmp_path, TWO_TESTS)
    result = run_tool("execute", path, "--test-case", "Mul")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{path}:7: 2 * 3 = 6\n"


def test_names_do_not_leak_between_tests(tmp_path):
    path = write_cpp(tmp_path, """\
        TEST(A, First) {
          /*
          #|PYTHON
          secret = 1
          */
          EXPECT_EQ(a, 0);  // #PYTHON secret
        }
        TEST(A, Second) {
          EXPECT_EQ(b, 0);  // #PYTHON secret
        }
    """)
    with pytest.raises(pt.TruthError) as info:
        pt.evaluate(pt.read_source(str(path)))
    assert info.value.line == 9
    assert "NameError" in str(info.value)
    assert "A.Second" in str(info.value)


def test_each_test_starts_from_seed_zero_and_default_dtype(tmp_path):
    result = substitute_text(tmp_path, """\
        TEST(Rand, A) {
          /*
          #|PYTHON
          torch.set_default_dtype(torch.float64)
          */
          EXPECT_EQ(a, 0);  // #PYTHON torch.rand(2).tolist()[1]
        }
        TEST(Rand, B) {
          EXPECT_EQ(b, 0);  // #PYTHON torch.rand(2).tolist()[1]
          EXPECT_EQ(c, 0);  // #PYTHON torch.get_default_dtype()
        }
    """)
    torch.manual_seed(0)
    expected = torch.rand(2).tolist()[1]
    assert f"EXPECT_EQ(b, {expected!r});" in result
    assert "EXPECT_EQ(c, fp::DType::F32);" in result
    assert f"EXPECT_EQ(a, {expected!r});" not in result  # float64 draw differs


def test_global_block_is_shared_by_every_test(tmp_path):
    result = substitute_text(tmp_path, """\
        /*
        #|PYTHON_GLOBAL
        def triple(x):
            return 3 * x
        counter = [0]
        */
        TEST(G, One) {
          counter.append(1);
          EXPECT_EQ(a, 0);  // #PYTHON (triple(2), len(counter))
        }
        TEST(G, Two) {
          /*
          #|PYTHON
          counter.append(2)
          */
          EXPECT_EQ(b, 0);  // #PYTHON (triple(5), len(counter))
        }
    """)
    assert "EXPECT_EQ(a, {6, 1});" in result
    assert "EXPECT_EQ(b, {15, 2});" in result  # a fresh copy of `counter`


def test_markers_see_the_namespace_as_of_their_position(tmp_path):
    result = substitute_text(tmp_path, one_test("""\
        /*
        #|PYTHON
        x = 1
        */
        EXPECT_EQ(a, 0);  // #PYTHON x
        /*
        #|PYTHON
        x = 2
        */
        EXPECT_EQ(b, 0);  // #PYTHON x
    """))
    assert "EXPECT_EQ(a, 1);" in result
    assert "EXPECT_EQ(b, 2);" in result


def test_block_exception_reports_cpp_line(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        /*
        #|PYTHON
        x = 1
        y = x / 0
        */
        EXPECT_EQ(a, 0);  // #PYTHON y
    """))
    with pytest.raises(pt.TruthError) as info:
        pt.evaluate(pt.read_source(str(path)))
    assert info.value.line == 5
    assert "ZeroDivisionError" in str(info.value)

    result = run_tool("execute", path)
    assert result.returncode == 2
    assert f"{path}:5: ZeroDivisionError" in result.stderr
    assert "y = x / 0" in result.stderr  # traceback shows the Python line
    assert "python_truth.py" not in result.stderr  # only the test's frames


def test_exception_inside_global_helper_reports_helper_line(tmp_path):
    path = write_cpp(tmp_path, """\
        /*
        #|PYTHON_GLOBAL
        def broken():
            return [][1]
        */
        TEST(S, T) {
          EXPECT_EQ(a, 0);  // #PYTHON broken()
        }
    """)
    result = run_tool("check", path)
    assert result.returncode == 2
    assert f"{path}:4: IndexError" in result.stderr
    assert f'File "{path}", line 7' in result.stderr  # the marker's frame


def test_syntax_error_in_marker_reports_cpp_line(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        EXPECT_EQ(a, 0);
        EXPECT_EQ(b, 0);  // #PYTHON 1 +
    """))
    with pytest.raises(pt.TruthError) as info:
        pt.evaluate(pt.read_source(str(path)))
    assert info.value.line == 3
    assert "SyntaxError" in str(info.value)


@pytest.mark.parametrize("body, line", [
    ("// #PYTHON 1\n", 2),                       # directly after `{`
    ("x += 1;  // #PYTHON 1\n", 2),              # neither call nor declaration
    ("EXPECT_TRUE(a)  // #PYTHON 1\n;\n", 2),    # not after a `;`
    ("f();\nEXPECT_EQ(a, 0)  // #PYTHON 1\n;\n", 3),
    ("EXPECT_TRUE();  // #PYTHON 1\n", 2),       # nothing to replace
    ("EXPECT_EQ(a, 1);  // #PYTHON\n", 2),       # empty expression
])
def test_marker_without_a_usable_statement_is_an_error(tmp_path, body, line):
    path = write_cpp(tmp_path, one_test(body))
    with pytest.raises(pt.TruthError) as info:
        pt.read_source(str(path))
    assert info.value.line == line
    assert str(info.value).startswith(f"{path}:{line}:")


def test_two_markers_for_one_statement_is_an_error(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        EXPECT_EQ(a, 0);  // #PYTHON 1
        // #PYTHON 2
    """))
    with pytest.raises(pt.TruthError, match="same text") as info:
        pt.read_source(str(path))
    assert info.value.line == 3


def test_marker_outside_a_test_is_an_error(tmp_path):
    path = write_cpp(tmp_path, "const int x = 0;  // #PYTHON 1\n")
    with pytest.raises(pt.TruthError, match="outside of a TEST") as info:
        pt.read_source(str(path))
    assert info.value.line == 1


def test_block_prints_do_not_pollute_substitute_stdout(tmp_path):
    text = one_test("""\
        /*
        #|PYTHON
        print("debugging output")
        */
        EXPECT_EQ(a, 0);  // #PYTHON 1
    """)
    path = write_cpp(tmp_path, text)
    result = run_tool("substitute", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == text.replace("EXPECT_EQ(a, 0);", "EXPECT_EQ(a, 1);")
    assert "debugging output" in result.stderr


# -- command line --------------------------------------------------------------

def test_extract_prints_a_runnable_program(tmp_path):
    path = write_cpp(tmp_path, """\
        /*
        #|PYTHON_GLOBAL
        base = 10
        */
        TEST(E, One) {
          /*
          #|PYTHON
          v = torch.tensor([1.5, 2.5]) + base
          */
          EXPECT_EQ(a, 0);  // #PYTHON v.tolist()
        }
    """)
    result = run_tool("extract", path)
    assert result.returncode == 0, result.stderr
    program = result.stdout
    assert f"# {path}:3 (PYTHON_GLOBAL)" in program
    assert f"# {path}:8 (PYTHON)" in program
    assert f"print(repr(v.tolist()))  # {path}:10" in program
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "[11.5, 12.5]\n"


def test_execute_prints_every_value(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        EXPECT_EQ(t.sizes(), (std::vector<int64_t>{}));  // #PYTHON [2, 3]
        EXPECT_EQ(s, "");  // #PYTHON "x\\ty"
    """))
    result = run_tool("execute", path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (f"{path}:2: [2, 3] = {{2, 3}}\n"
                             f'{path}:3: "x\\ty" = "x\\ty"\n')


def test_substitute_to_output_file(tmp_path):
    path = write_cpp(tmp_path, TWO_TESTS)
    out = tmp_path / "out.cpp"
    result = run_tool("substitute", path, "-o", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "EXPECT_EQ(add(1, 2), 3);" in out.read_text()
    assert "EXPECT_EQ(add(1, 2), 0);" in path.read_text()  # input untouched


def test_update_is_idempotent_and_leaves_unchanged_files_alone(tmp_path):
    path = write_cpp(tmp_path, TWO_TESTS)
    first = run_tool("update", path)
    assert first.returncode == 0, first.stderr
    updated = path.read_bytes()
    assert b"EXPECT_EQ(mul(2, 3), 6);" in updated
    inode = os.stat(path).st_ino

    second = run_tool("update", path)
    assert second.returncode == 0, second.stderr
    assert path.read_bytes() == updated
    assert os.stat(path).st_ino == inode  # not even rewritten
    assert second.stdout == ""


def test_update_keeps_file_mode(tmp_path):
    path = write_cpp(tmp_path, TWO_TESTS)
    path.chmod(0o640)
    assert pt.main(["update", str(path)]) == 0
    assert (path.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp files left


@pytest.mark.skipif(shutil.which("clang-format") is None, reason="needs clang-format")
def test_update_runs_clang_format_when_configured(tmp_path):
    (tmp_path / ".clang-format").write_text("BasedOnStyle: Google\n")
    path = write_cpp(tmp_path, "TEST(S,T){\n  EXPECT_EQ(a,0);  // #PYTHON 1\n}\n")
    assert pt.main(["update", str(path)]) == 0
    assert path.read_text() == "TEST(S, T) {\n  EXPECT_EQ(a, 1);  // #PYTHON 1\n}\n"
    assert pt.main(["check", str(path)]) == 0


@pytest.mark.skipif(shutil.which("clang-format") is None, reason="needs clang-format")
def test_update_refuses_clang_format_that_breaks_python(tmp_path):
    (tmp_path / ".clang-format").write_text("BasedOnStyle: Google\nColumnLimit: 40\n")
    path = write_cpp(tmp_path, one_test("""\
        /*
        #|PYTHON
        a_long_name = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        */
        EXPECT_EQ(a, 0);  // #PYTHON len(a_long_name)
    """))
    expected = path.read_text().replace("EXPECT_EQ(a, 0);", "EXPECT_EQ(a, 8);")
    result = run_tool("update", path)
    assert result.returncode == 2
    assert "ReflowComments" in result.stderr
    assert path.read_text() == expected  # substituted, but not formatted

    (tmp_path / ".clang-format").write_text(
        "BasedOnStyle: Google\nColumnLimit: 40\nReflowComments: false\n")
    path.write_text(path.read_text().replace("EXPECT_EQ(a, 8);", "EXPECT_EQ(a, 0);"))
    assert run_tool("update", path).returncode == 0
    formatted = path.read_text()
    assert "  EXPECT_EQ(\n      a,\n      8);  // #PYTHON len(a_long_name)\n" in formatted
    assert "a_long_name = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]\n" in formatted
    assert pt.main(["check", str(path)]) == 0


def test_check_passes_then_fails_after_hand_edit(tmp_path):
    path = write_cpp(tmp_path, """\
        TEST(C, Values) {
          /*
          #|PYTHON
          r = torch.tensor([[1.0, 2.0], [3.0, 4.0]]) * 2
          */
          EXPECT_EQ(r.sizes(), (std::vector<int64_t>{}));  // #PYTHON list(r.shape)
          const std::vector<float> expected = {};  // #PYTHON r.flatten().tolist()
        }
    """)
    assert run_tool("update", path).returncode == 0

    ok = run_tool("check", tmp_path)  # directories are searched
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.strip() == "python_truth: 2 values in 1 files checked, 0 stale"

    # Reformatting is not staleness.
    path.write_text(path.read_text().replace("{2.0, 4.0, 6.0, 8.0}",
                                             "{\n      2.0,\n      4.0, 6.0, 8.0,\n  }"))
    assert run_tool("check", path).returncode == 0

    path.write_text(path.read_text().replace("6.0", "6.5"))
    stale = run_tool_process("check", path)  # the program's own exit status
    assert stale.returncode == 1
    assert stale.stdout == (
        f"{path}:10: stale value in C.Values: r.flatten().tolist()\n"
        "  - 2.0, 4.0, 6.5, 8.0,\n"
        "  + 2.0, 4.0, 6.0, 8.0\n"
        "python_truth: 2 values in 1 files checked, 1 stale\n")


def test_check_directory_skips_files_without_python(tmp_path):
    write_cpp(tmp_path, TWO_TESTS, name="uses.cc")
    write_cpp(tmp_path, "TEST(X, Y) { EXPECT_EQ(a, 1); }\n", name="plain.cpp")
    (tmp_path / "notes.txt").write_text("// #PYTHON 1\n")
    result = run_tool("check", tmp_path)
    assert result.returncode == 1
    assert "2 values in 1 files checked, 2 stale" in result.stdout


def test_check_directory_skips_hidden_directories(tmp_path):
    write_cpp(tmp_path, TWO_TESTS, name="visible.cpp")
    (tmp_path / ".venv").mkdir()
    write_cpp(tmp_path / ".venv", TWO_TESTS, name="hidden.cpp")
    assert pt.collect_sources([str(tmp_path)]) == [str(tmp_path / "visible.cpp")]


def test_check_reports_missing_path(tmp_path):
    result = run_tool("check", tmp_path / "missing.cpp")
    assert result.returncode == 2
    assert "missing.cpp" in result.stderr


def test_tool_is_executable_with_shebang():
    assert os.access(TOOL, os.X_OK)
    assert TOOL.read_text().startswith("#!/usr/bin/env python3\n")
    assert "#|PYTHON" in pt.__doc__


def test_adjacent_string_literals_compare_as_one():
    """clang-format may split a long literal; the value is unchanged."""
    assert pt.is_up_to_date('"tensor([1., " "2.])"', '"tensor([1., 2.])"', braced=False)
    assert not pt.is_up_to_date('"tensor([1., " "3.])"', '"tensor([1., 2.])"', braced=False)


# -- run-time truth: truth<T>("expression") -----------------------------------

def evaluate_cache(tmp_path: Path, text: str, env=None) -> dict:
    import json
    path = write_cpp(tmp_path, text)
    cache_dir = tmp_path / "cache"
    arguments = ("evaluate", path, "--cache-dir", cache_dir)
    # Another environment (CPU settings torch reads when imported) needs a new process.
    result = run_tool(*arguments) if env is None else subprocess.run(
        [sys.executable, str(TOOL), *map(str, arguments)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    files = list(cache_dir.glob("truth-*.json"))
    assert len(files) == 1
    return json.loads(files[0].read_text())


def test_truth_values_run_in_source_order_with_blocks(tmp_path):
    cache = evaluate_cache(tmp_path, one_test("""\
        /*
        #|PYTHON
        x = torch.tensor([1.5, 2.0]) * 3
        */
        EXPECT_EQ(values(a), truth<std::vector<float>>("x.tolist()"));
        /*
        #|PYTHON
        x = x + 1
        */
        EXPECT_EQ(b, truth<double>("x.sum().item()"));
    """))
    values = cache["tests"]["Suite.Case"]["values"]
    assert values == {"x.tolist()": [4.5, 6.0], "x.sum().item()": 12.5}


def test_truth_renders_every_kind_of_value(tmp_path):
    cache = evaluate_cache(tmp_path, one_test("""\
        truth<bool>("True");
        truth<double>("float('nan')");
        truth<double>("-math.inf");
        truth<std::complex<double>>("complex(1, -2)");
        truth<fp::DType>("torch.float16");
        truth<fp::Device>("torch.device('cpu')");
        truth<std::uint64_t>("2**64 - 1");
        truth<std::string>(R"(str("q") + 'r')");
        truth<std::vector<std::vector<int>>>("torch.ones(2, 1, dtype=torch.int32)");
    """))
    values = cache["tests"]["Suite.Case"]["values"]
    assert values == {
        "True": True, "float('nan')": "nan", "-math.inf": "-inf",
        "complex(1, -2)": {"complex": [1.0, -2.0]}, "torch.float16": {"dtype": "float16"},
        "torch.device('cpu')": {"device": "cpu"}, "2**64 - 1": 2**64 - 1,
        "str(\"q\") + 'r'": "qr", "torch.ones(2, 1, dtype=torch.int32)": [[1], [1]]}


def test_truth_string_literals_are_decoded_like_cpp():
    assert pt.decode_cpp_string_literal(r'"say \"hi\"\n"') == 'say "hi"\n'
    assert pt.decode_cpp_string_literal('R"(a"b\\n)"') == 'a"b\\n'
    assert pt.decode_cpp_string_literal('R"x(a)"b)x"') == 'a)"b'
    assert pt.decode_cpp_string_literal(r'"\101\0"') == "A\0"


def test_truth_split_literals_are_joined(tmp_path):
    source = pt.parse_source("t.cpp", one_test("""\
        EXPECT_EQ(a, truth<int>("1 + "
                                "2"));
    """))
    assert [s.expression for s in source.truths()] == ["1 + 2"]


def test_truth_outside_a_test_is_an_error(tmp_path):
    with pytest.raises(pt.TruthError, match="outside of a TEST"):
        pt.parse_source("t.cpp", 'int x = truth<int>("1");\n')


def test_truth_with_a_non_literal_argument_is_not_a_step():
    source = pt.parse_source("t.cpp", one_test("""\
        const auto value = truth<int>(expression);
        T truth(std::string_view expression);
    """))
    assert source.truths() == []


def test_truth_with_two_values_for_one_expression_is_an_error(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        /*
        #|PYTHON
        x = 1
        */
        truth<int>("x");
        /*
        #|PYTHON
        x = 2
        */
        truth<int>("x");
    """))
    result = run_tool("evaluate", path, "--cache-dir", tmp_path / "cache")
    assert result.returncode == 2
    assert "has two values in Suite.Case" in result.stderr


def test_truth_unrenderable_value_names_the_line(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        truth<int>("object()");
    """))
    result = run_tool("evaluate", path, "--cache-dir", tmp_path / "cache")
    assert result.returncode == 2
    assert "test_sample.cpp:2:" in result.stderr and "cannot pass" in result.stderr


def test_truth_cache_is_named_by_torch_and_cpu_settings(tmp_path):
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default", "MKL_ENABLE_INSTRUCTIONS": "SSE4_2"}
    env.pop("ONEDNN_MAX_CPU_ISA", None)
    env["MKL_CBWR"] = "COMPATIBLE"
    cache = evaluate_cache(tmp_path, one_test('truth<int>("1");\n'), env=env)
    release = torch.__version__.split("+")[0]
    assert (tmp_path / "cache" / f"truth-{release}-default-SSE4_2-auto-COMPATIBLE.json").exists()
    assert cache["settings"]["ATEN_CPU_CAPABILITY"] == "default"
    assert cache["cpu_capability"] == "DEFAULT"  # torch honoured the setting


def test_truth_cache_is_reused_until_an_input_changes(tmp_path):
    path = write_cpp(tmp_path, one_test('truth<int>("1");\n'))
    first = run_tool("evaluate", path, "--cache-dir", tmp_path / "cache")
    again = run_tool("evaluate", path, "--cache-dir", tmp_path / "cache")
    assert "up to date" in again.stdout and "up to date" not in first.stdout
    path.write_text(one_test('truth<int>("2");\n'))
    changed = run_tool("evaluate", path, "--cache-dir", tmp_path / "cache")
    assert "up to date" not in changed.stdout


def test_truth_does_not_take_part_in_check_or_update(tmp_path):
    path = write_cpp(tmp_path, one_test("""\
        EXPECT_EQ(a, truth<int>("1 + 1"));
        EXPECT_EQ(b, 0);  // #PYTHON 3
    """))
    assert [e.value for e in pt.evaluate(pt.read_source(str(path)))] == [3]
    result = run_tool("check", path)
    assert result.returncode == 1 and "1 stale" in result.stdout


def test_support_modules_are_importable_from_blocks(tmp_path):
    (tmp_path / "support").mkdir()
    (tmp_path / "support" / "shared_helper.py").write_text("def twice(x):\n    return 2 * x\n")
    (tmp_path / "unit").mkdir()
    cache = evaluate_cache(tmp_path / "unit", """\
        /*
        #|PYTHON_GLOBAL
        from shared_helper import twice
        */
        TEST(S, T) {
          truth<int>("twice(21)");
        }
    """)
    assert cache["tests"]["S.T"]["values"] == {"twice(21)": 42}
