"""What the page's style sheet writes from the strings (screen.py): a word in CSS's `content` is a CSS string that
nothing in the word can end or break out of."""

import re

import pytest

from mha.ui import screen


@pytest.mark.parametrize("word", ["上传", "Upload", 'a"b', "a\\b", "a\nb", "</style><script>x</script>", "x; } * {"])
def test_a_word_becomes_one_css_string_that_reads_back_as_itself(word):
    css = screen.css_string(word)
    inner = css[1:-1]
    assert css[0] == css[-1] == '"' and not re.search(r'["\n<>;{}]', inner)  # nothing to end the string or the rule
    read = re.sub(r"\\([0-9a-f]+) ", lambda m: chr(int(m.group(1), 16)), inner)  # how CSS reads its escapes back
    assert read == word
