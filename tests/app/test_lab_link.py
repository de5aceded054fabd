"""The variant lab in a link: `variant` and its knobs are read, checked and clamped before any widget sees them,
and `variant` means the lab's variant on stage variants and the cache's on stage kv_cache."""

import pytest

from mha.ui import settings as S

from .helpers import run


def test_variant_is_the_labs_on_the_lab_and_the_caches_on_the_kv_stage():
    out, notices = S.parse_params({"stage": "variants", "variant": "rope"})
    assert out["variant"] == "rope" and "kv_variant" not in out and not notices
    out, notices = S.parse_params({"stage": "kv_cache", "variant": "window"})
    assert out["kv_variant"] == "window" and "variant" not in out and not notices


@pytest.mark.parametrize("stage, value", [("variants", "mha"), ("kv_cache", "online"), ("variants", "GQA"),
                                          ("variants", "<b>x</b>")])
def test_a_variant_a_stage_does_not_have_is_refused_with_a_notice(stage, value):
    out, notices = S.parse_params({"stage": stage, "variant": value})
    assert "variant" not in out and "kv_variant" not in out
    assert [(n.key, n.fields["key"]) for n in notices] == [("notice_unknown", "variant")]


SIZED = ("d_latent", "kv_heads", "rotary_dims", "tile")  # the knobs whose highest value the sizes set


@pytest.mark.parametrize("key", sorted(S.KNOB_RANGE))
def test_every_knob_is_read_as_a_whole_number_and_clamped_with_a_notice(key):
    low, high = S.KNOB_RANGE[key]
    assert S.parse_params({key: str(low)}) == ({key: low}, [])
    out, notices = S.parse_params({key: str(high + 1)})
    if key in SIZED:  # above any size's limit: the page cuts it to what its sizes take and names the value asked (N11)
        assert out[key] == high and out[S.KNOB_ASKED] == {key: high + 1} and notices == []
    else:
        assert out[key] == high and notices[0].key == "notice_clamped" and notices[0].fields["used"] == high
    out, notices = S.parse_params({key: "1e309"})
    assert key not in out and notices[0].key == "notice_not_whole"


def test_every_variant_reads_knobs_that_exist_and_every_knob_is_read():
    assert set(S.KNOBS) == set(S.VARIANTS) | set(S.KV_VARIANTS)
    read = {k for knobs in S.KNOBS.values() for k in knobs}
    assert read == set(S.KNOB_RANGE)
    assert all(S.KNOB_RANGE[k][0] <= S.DEFAULTS[k] <= S.KNOB_RANGE[k][1] for k in S.KNOB_RANGE)


@pytest.mark.parametrize("variant, knob, value", [("rope", "rotary_dims", 4), ("online", "tile", 3)])
@pytest.mark.parametrize("part", S.LAB_PARTS)
def test_a_link_to_a_part_of_rope_or_the_online_softmax_opens_there_and_says_so(variant, knob, value, part):
    """Each part draws the variant's knob, and the address bar keeps the part and the knob (the default part
    unsaid)."""
    at = run(stage="variants", variant=variant, part=part, **{knob: value})
    assert at.session_state["lab_part"] == part and at.session_state[knob] == value
    widget = at.select_slider(key=knob) if knob == "rotary_dims" else at.number_input(key=knob)
    assert int(widget.value) == value
    said = {k: at.query_params[k] for k in at.query_params}
    said = {k: v[0] if isinstance(v, list) else v for k, v in said.items()}
    assert said.get("part") == (None if part == "change" else part) and said[knob] == str(value)
