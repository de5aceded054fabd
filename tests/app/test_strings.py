"""The strings tables: same keys in both languages, same fields, Chinese where Chinese is meant."""

import re
import string

import pytest

from mha.ui.strings import EN, TABLES, ZH, Text

CJK = re.compile(r"[\u4e00-\u9fff]")


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_both_languages_have_the_same_keys():
    assert set(EN) - set(ZH) == set(), "missing in zh"
    assert set(ZH) - set(EN) == set(), "missing in en"


@pytest.mark.parametrize("key", sorted(EN))
def test_both_languages_fill_the_same_fields(key):
    assert _fields(EN[key]) == _fields(ZH[key])


@pytest.mark.parametrize("key", sorted(EN))
def test_english_has_no_chinese_and_chinese_has_some(key):
    assert not CJK.search(EN[key]), key
    assert CJK.search(ZH[key]) or ZH[key] == EN[key], key  # only language-neutral strings are shared


def test_unknown_language_falls_back_to_english():
    assert Text("fr")("prev") == EN["prev"] and Text("zh")("prev") == ZH["prev"]
    assert set(TABLES) == {"en", "zh"}
