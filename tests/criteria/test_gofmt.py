"""Go ``%v`` rendering, ``strings.ToLower`` and JSON text decoding with Go's errors."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agenteval_nb.criteria.gofmt import go_float, go_lower, go_value
from agenteval_nb.criteria.rawjson import JSONTextError, decode_json_text, go_json_error


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (0.5, "0.5"),
        (-2.25, "-2.25"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (1234567.0, "1.234567e+06"),
        (0.0001, "0.0001"),
        (1e-05, "1e-05"),
        (1.5e-07, "1.5e-07"),
        (1e21, "1e+21"),
        (1e100, "1e+100"),
        (0.1 + 0.2, "0.30000000000000004"),
        (0.0, "0"),
        (-0.0, "-0"),
        (math.inf, "+Inf"),
        (-math.inf, "-Inf"),
        (math.nan, "NaN"),
    ],
)
def test_go_float_matches_fmt_v(value, text):
    assert go_float(value) == text


@settings(deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_go_float_round_trips(value):
    assert float(go_float(value)) == value


def test_go_value_renders_maps_sorted_and_arrays_space_separated():
    value = {"b": [1, "x", True, None], "a": {"z": 1.5}, "c": 2}
    assert go_value(value) == "map[a:map[z:1.5] b:[1 x true <nil>] c:2]"
    assert go_value([]) == "[]"
    assert go_value({}) == "map[]"
    assert go_value(None) == "<nil>"
    assert go_value(False) == "false"
    assert go_value(3) == "3"
    assert go_value(10**7) == "1e+07"  # numbers are float64 in the reference


def test_go_lower_uses_simple_per_character_mapping():
    assert go_lower("HeLLo") == "hello"
    assert go_lower("İx") == "ix"  # Python's lower() gives "i̇x"
    assert go_lower("ΟΔΟΣ") == "οδοσ"  # no final sigma
    assert go_lower("ÀÉ") == "àé"


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "EOF"),
        ("  \n", "EOF"),
        ("Paris", "invalid character 'P' looking for beginning of value"),
        ('{"a":', "unexpected EOF"),
        ('"abc', "unexpected EOF"),
        ("tru", "unexpected EOF"),
        ("trux", "invalid character 'x' in literal true (expecting 'e')"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a":1 "b":2}', "invalid character '\"' after object key:value pair"),
        ("[1 2]", "invalid character '2' after array element"),
        ("[1,]", "invalid character ']' looking for beginning of value"),
        ('{"a":1,}', "invalid character '}' looking for beginning of object key string"),
        ("{a:1}", "invalid character 'a' looking for beginning of object key string"),
        ('"a\nb"', "invalid character '\\n' in string literal"),
        ('"a\\x"', "invalid character 'x' in string escape code"),
        ('"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"),
        ("-x", "invalid character 'x' in numeric literal"),
        ("1.x", "invalid character 'x' after decimal point in numeric literal"),
        ("1ex", "invalid character 'x' in exponent of numeric literal"),
        ("NaN", "invalid character 'N' looking for beginning of value"),
        ("{} {}", "multiple json values"),
        ("01", "multiple json values"),
        ("{} x", "invalid character 'x' looking for beginning of value"),
        ("'a'", "invalid character '\\'' looking for beginning of value"),
        ("1e400", "json: cannot unmarshal number 1e400 into Go value of type float64"),
    ],
)
def test_decode_json_text_reports_go_errors(text, error):
    with pytest.raises(JSONTextError) as info:
        decode_json_text(text)
    assert str(info.value) == error


def test_decode_json_text_accepts_one_value_with_whitespace():
    assert decode_json_text(' \n{"a": [1, 2.5, true, null]}\t') == {"a": [1, 2.5, True, None]}
    assert decode_json_text("12345678901234567890123", keep_numbers=True) == (
        12345678901234567890123
    )
    assert go_json_error('{"a": 1}') is None
