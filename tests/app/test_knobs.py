"""A variant's knobs are one widget each (mha/ui/knobs.py), the same in the lab and beside the KV-cache stage's picker:
the same kind of control with the same choices, the same session key (a value set on one stage holds on the other),
and the same words when a link or a size change asks for a value the sizes cannot take."""

import pytest

from mha.ui import settings as S
from mha.ui.strings import Text
from mha.ui.variant_defs import VARIANTS

from .helpers import captions, rerun, run

BOTH = [v for v in S.KV_VARIANTS if v in S.VARIANTS and VARIANTS[v].knobs]
KINDS = ("button_group", "select_slider", "number_input")  # how AppTest names a segmented control, a slider, a box


def widget(at, key: str):
    """The widget that holds `key`, and its kind."""
    found = []
    for kind in KINDS:
        try:
            found.append((kind, getattr(at, kind)(key=key)))
        except KeyError:
            continue
    assert len(found) == 1, (key, [k for k, _ in found])
    return found[0]


def choices(kind: str, w) -> list:
    return list(w.options) if kind in ("button_group", "select_slider") else []


@pytest.mark.parametrize("variant", BOTH)
def test_each_knob_is_the_same_widget_with_the_same_choices_on_the_lab_and_the_kv_stage(variant):
    sizes = dict(n_heads=4, d_k=6)  # GQA has a choice of divisors (1, 2, 4); RoPE of even dims (0 … 6)
    lab, kv = run(stage="variants", variant=variant, **sizes), run(stage="kv_cache", variant=variant, **sizes)
    for knob in VARIANTS[variant].knobs:
        (kind, a), (kind_kv, b) = widget(lab, knob.key), widget(kv, knob.key)
        assert kind == kind_kv and choices(kind, a) == choices(kind_kv, b), knob.key
        assert a.value == b.value


@pytest.mark.parametrize("variant, key, value", [("gqa", "kv_heads", 1), ("rope", "rotary_dims", 2),
                                                 ("window", "window", 3)])
def test_a_knob_set_in_the_lab_holds_on_the_kv_stage(variant, key, value):
    at = run(stage="variants", variant=variant, n_heads=4)
    kind, w = widget(at, key)
    w.set_value(value)
    rerun(at)
    at.session_state["stage"] = "kv_cache"
    at.session_state["kv_variant"] = variant
    rerun(at)
    assert widget(at, key)[1].value == value and at.query_params[key] == str(value)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stage", ["variants", "kv_cache"])
@pytest.mark.parametrize("variant, key, asked, used, said", [
    ("gqa", "kv_heads", 3, 2, ("lab_groups_kept", dict(h=4))),
    ("rope", "rotary_dims", 5, 4, ("lab_rope_kept_odd", dict(d_k=7))),
    ("rope", "rotary_dims", 9, 6, ("lab_rope_kept_over", dict(d_k=7))),
    ("mla", "d_latent", 9, 8, ("lab_mla_clamped", dict(d=5, high=8))),
])
def test_a_value_the_sizes_cannot_take_is_said_the_same_on_both_stages(lang, stage, variant, key, asked, used, said):
    at = run(stage=stage, variant=variant, lang=lang, n_heads=4, **{key: asked})
    words = Text(lang)(said[0], asked=asked, used=used, **said[1])
    assert widget(at, key)[1].value == used and words in captions(at)
    assert at.query_params.get(key, str(S.DEFAULTS[key])) == str(used)
