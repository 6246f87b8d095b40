"""XMLCriterion (SPEC §3.5): strategy rules and Go-strict well-formedness."""

import pytest

from agenteval_nb.criteria import MatchError, match_xml, validate_xml
from agenteval_nb.schema import XMLCriterion

VALID = XMLCriterion(valid=True, match_strategy="skip")


def xml_error(content, criterion=VALID):
    with pytest.raises(MatchError) as info:
        match_xml(criterion, content, "ignored")
    return str(info.value)


def test_strategy_rules():
    match_xml(XMLCriterion(ignore=True), "<<<", "")
    assert xml_error("<a/>", XMLCriterion(valid=True)) == "xml match strategy is empty"
    assert xml_error("<a/>", XMLCriterion(match_strategy="exact")) == "invalid match strategy exact"
    assert validate_xml(XMLCriterion()) == "xml match strategy is empty"
    assert validate_xml(XMLCriterion(match_strategy="exact")) == "invalid match strategy exact"
    assert validate_xml(VALID) is None
    match_xml(XMLCriterion(match_strategy="skip"), "not xml at all", "")  # valid=false


@pytest.mark.parametrize(
    "content",
    [
        "<a/>",
        "  <root><child attr='1'>text &amp; more &#65; &#x42;</child></root>\n",
        '<?xml version="1.0" encoding="UTF-8"?>\n<!-- prolog comment --><a/>',
        "<!DOCTYPE note [<!ELEMENT note (#PCDATA)> <!-- c -->]><note>x</note>",
        '<r xmlns="urn:x" xmlns:p="urn:p"><p:c p:at="v"/></r><!-- trailing -->',
        "<a><![CDATA[<not> & markup]]></a>",
        "<a><?pi data?></a>",
        "<数据>中文</数据>",
    ],
)
def test_well_formed_documents(content):
    match_xml(VALID, content, "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "xml content is empty"),
        ("   \n\t", "xml content is empty"),
        ("<a/><b/>", "xml content must contain a single root element"),
        ("<a></a>\n<b></b>", "xml content must contain a single root element"),
        ("hello <a/>", "xml content has non-whitespace text outside the root element"),
        ("<a/> trailing", "xml content has non-whitespace text outside the root element"),
        ("<!-- only a comment -->", "xml content must contain a root element"),
        ('<?xml version="1.0"?>', "xml content must contain a root element"),
        ("<a><b></b>", "xml content has unclosed elements"),
        ("<a>text", "xml content has unclosed elements"),
    ],
)
def test_structure_errors(content, message):
    assert xml_error(content) == message


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("<a></b>", "XML syntax error on line 1: element <a> closed by </b>"),
        ("<a>\n\n</b>", "XML syntax error on line 3: element <a> closed by </b>"),
        ("</a>", "XML syntax error on line 1: unexpected end element </a>"),
        ("<a", "XML syntax error on line 1: unexpected EOF"),
        ("<a b=c/>", "XML syntax error on line 1: unquoted or missing attribute value in element"),
        ("<a b/>", "XML syntax error on line 1: attribute name without = in element"),
        ("<a>&foo;</a>", "XML syntax error on line 1: invalid character entity &foo;"),
        ("<a>& b</a>", "XML syntax error on line 1: invalid character entity & (no semicolon)"),
        ("<a>&#;</a>", "XML syntax error on line 1: invalid character entity &#;"),
        ("<a>x]]>y</a>", "XML syntax error on line 1: unescaped ]]> not in CDATA section"),
        ("<a><!-- a -- b --></a>", 'XML syntax error on line 1: invalid sequence "--" not allowed in comments'),
        ("<1a/>", "XML syntax error on line 1: invalid XML name: 1a"),
        ("< a/>", "XML syntax error on line 1: expected element name after <"),
        ("<a>\x01</a>", "XML syntax error on line 1: illegal character code U+0001"),
        ("<a b='<'/>", "XML syntax error on line 1: unescaped < inside quoted string"),
        ("<a><![CDATA[x</a>", "XML syntax error on line 1: unexpected EOF in CDATA section"),
        ("<p:a xmlns:p='u1' xmlns:q='u2'></q:a>", "XML syntax error on line 1: element <a> in space u1 closed by </a> in space u2"),
        ('<?xml version="1.1"?><a/>', 'xml: unsupported version "1.1"; only version 1.0 is supported'),
        (
            '<?xml version="1.0" encoding="latin-1"?><a/>',
            'xml: encoding "latin-1" declared but Decoder.CharsetReader is nil',
        ),
    ],
)  # fmt: skip
def test_tokenizer_errors_read_like_go(content, message):
    assert xml_error(content) == message


def test_same_namespace_through_different_prefixes_is_accepted():
    match_xml(VALID, "<p:a xmlns:p='u' xmlns:q='u'></q:a>", "")


def test_expected_is_unused():
    match_xml(VALID, "<a/>", "<<< not xml")
