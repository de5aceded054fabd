"""The walk's order is written once (mha/ui/walk.py): each stage in it has a module that renders it and a name in both
languages, no stage module lies outside it, and the navigation numbers the stages as the page always has."""

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import mha.ui
from mha.ui import walk
from mha.ui.strings import TABLES
from mha.ui.walk import STAGES, Stage

from .helpers import rerun, run

# The numbers the navigation shows, in the walk's order: the post's 1 to 9, the tokens stage added beside the first,
# the variant lab beside the cache, the coda's block and next token after it. Written out here, not derived, so
# that a change shows.
SHOWN = ("1", "1b", "2", "3", "4", "5", "6", "7", "8", "9", "9b", "10", "11")
STAGE_MODULES = Path(mha.ui.__file__).parent / "stages"


def test_every_stage_in_the_walk_has_a_module_that_renders_it_and_a_name_in_both_languages():
    assert not (missing := [s for s in STAGES if not (STAGE_MODULES / f"{s}.py").is_file()]), f"no module: {missing}"
    from mha.ui import stages  # builds its RENDER from the walk

    for stage in STAGES:
        module = importlib.import_module(f"{stages.__name__}.{stage}")
        assert callable(getattr(module, "render", None)), f"stages/{stage}.py has no render(view)"
        for lang, table in TABLES.items():
            name = table.get(f"stage_{stage}", "")
            assert name.strip(), f"stage_{stage} has no name in {lang}"
            assert not name[0].isdigit(), f"stage_{stage} ({lang}) carries a number: walk.py numbers the stages"
    assert list(stages.RENDER) == list(STAGES)
    assert {m.name for m in pkgutil.iter_modules(stages.__path__)} == set(STAGES), "a stage module outside the walk"


def test_a_stage_added_beside_another_takes_its_number_and_a_letter_and_the_rest_keep_theirs():
    assert walk.numbers((Stage("a"), Stage("b", aside=True), Stage("c", aside=True), Stage("d"), Stage("e"))) == \
        {"a": "1", "b": "1b", "c": "1c", "d": "2", "e": "3"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_navigation_shows_each_stage_numbered_in_the_walks_order(lang):
    at = run(stage=STAGES[0], lang=lang)
    names = [TABLES[lang][f"stage_{s}"] for s in STAGES]
    parts = {"kv_cache": ("walk_variant_parts", 9, 2), "variants": ("walk_variant_parts", 9, 3),
             "block": ("walk_parts", 0, 5)}  # the views behind a stage in parts (the heads' with the trained model)
    table = TABLES[lang]
    more = {s: " · " + table[k].format(variants=v, parts=p) for s, (k, v, p) in parts.items()}
    assert at.radio(key="stage").options == [f"{n} · {name}{more.get(s, '')}"
                                             for s, n, name in zip(STAGES, SHOWN, names, strict=True)]
    # Next follows the same order, and through the parts of the block, each named on its button (audit 2026-12-07 #1:
    # Next left the block after its first part); the KV cache's cost and the lab's parts are asides, not the walk's
    walked = {"block": [("block_part", p) for p in ("attn", "ln1", "ffn", "gelu", "out")]}  # post-LN's order
    seen = [(at.session_state["stage"], None)]
    while "next_stage" in [b.key for b in at.button]:
        label = at.button(key="next_stage").label
        at.button(key="next_stage").click()
        ss = rerun(at).session_state
        part = dict(walked.get(ss["stage"], []))
        here = (ss["stage"], ss[next(iter(part))] if part else None)
        if seen[-1][0] == here[0]:  # a part of the same stage: the button said which
            name = table[f"block_part_{here[1]}_post" if here[1] in ("ffn", "out") else f"block_part_{here[1]}"]
            assert name in label, (label, here)
        else:
            assert label == table["next"]
        seen.append(here)
    want = [(s, p) for s in STAGES for p in ([p for _, p in walked[s]] if s in walked else [None])]
    assert seen == want
    at.button(key="prev_stage").click()  # back from the last stage: the block's last part
    assert (rerun(at).session_state["stage"], at.session_state["block_part"]) == ("block", "out")
    assert at.button(key="prev_stage").label == table["prev_part"].format(part="4 · " + table["block_part_gelu"])


def test_next_walks_the_trained_heads_parts_and_back_comes_back_to_the_last():
    at = run(stage="heads", model="trained")
    seen = [at.session_state.get("heads_part", "patterns")]
    while (at.session_state["stage"], seen[-1]) != ("output", None):
        at.button(key="next_stage").click()
        rerun(at)
        seen.append(at.session_state["heads_part"] if at.session_state["stage"] == "heads" else None)
    assert seen == ["patterns", "knock", "writes", "circuits", "timeline", None]
    at.button(key="prev_stage").click()
    assert (rerun(at).session_state["stage"], at.session_state["heads_part"]) == ("heads", "timeline")
    while at.session_state["heads_part"] != "patterns":  # Back through every part, to the first (planted p06: Back
        at.button(key="prev_stage").click()  # on the second part left the stage)
        seen.append(rerun(at).session_state["heads_part"])
        assert at.session_state["stage"] == "heads"
    assert seen[-4:] == ["circuits", "writes", "knock", "patterns"]
    at.button(key="prev_stage").click()
    assert rerun(at).session_state["stage"] == "values"
    seeded = run(stage="heads")  # the seeded walk's heads stage has no parts: Next goes on
    seeded.button(key="next_stage").click()
    assert rerun(seeded).session_state["stage"] == "output"


# The modules that read the stages' declarations (parts, link parameters, the example text, who resets X) instead of
# naming a stage: a stage's id written in one of them is a branch the walk should declare.
READERS = ("app.py", "mha/ui/settings.py", "mha/ui/link.py", "mha/ui/sidebar.py", "mha/ui/session.py",
           "mha/ui/x_source.py", "mha/ui/primes.py", "mha/ui/x_codec.py", "mha/ui/code.py")


def test_the_modules_that_read_the_walk_name_no_stage():
    root = Path(mha.ui.__file__).parents[2]
    named = []
    for path in READERS:
        for node in ast.walk(ast.parse((root / path).read_text())):
            # the page a link without `stage` opens is a default like any other (settings.DEFAULTS)
            if isinstance(node, ast.keyword) and node.arg == "stage":
                continue
            if isinstance(node, ast.Constant) and node.value in STAGES and not _default(node, path):
                named.append(f"{path}:{node.lineno} {node.value!r}")
    assert not named, f"stage ids outside the walk's declarations: {named}"


def _default(node: ast.Constant, path: str) -> bool:
    from mha.ui import settings

    return path == "mha/ui/settings.py" and node.value == settings.DEFAULTS["stage"] and \
        node.lineno < 40  # DEFAULTS(stage=…) at the top


@pytest.mark.parametrize("stage, param", [(s.id, p) for s in walk.WALK for p in s.params],
                         ids=lambda v: v if isinstance(v, str) else v.name)
def test_each_stage_writes_the_link_parameters_its_entry_declares_and_only_on_its_own_page(stage, param):
    """Set to a value other than its default, a stage's own parameter is in the link while the stage is shown, with
    the weights it is declared for (the block's order only with seeded weights, the knocked heads only with the
    trained model), and left out on another stage."""
    from mha.ui import settings

    model = dict(model="trained") if param.model == "trained" else {}
    value = "1.1,2.2" if param.values is None else next(v for v in param.values if v != settings.DEFAULTS[param.key])
    at = run(stage=stage, **{param.name: value}, **model)
    assert at.query_params.get(param.name) == value
    if param.model:  # the other weights: not in the link
        other = {} if model else dict(model="trained")
        assert param.name not in run(stage=stage, **{param.name: value}, **other).query_params
    elsewhere = "input" if stage != "input" else "output"
    assert at.session_state[param.key] in (value, value.split(","))
    at.session_state["stage"] = elsewhere
    assert param.name not in rerun(at).query_params or any(
        q.name == param.name for q in walk.BY_ID[elsewhere].params)


# The post's sections (its headings, as it writes them) that the stages follow; the asides it does not have
SECTIONS = {"matmul": "线性代数复习", "input": "从输入到输出", "qk": "Q、K、V", "scores": "Q、K、V",
            "values": "Q、K、V", "heads": "多头注意力", "output": "输出", "dependency": "输入输出关系分析",
            "kv_cache": "KV Cache", "block": "尾声", "next_token": "尾声"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_stage_says_where_it_is_in_the_walk_and_in_the_post_on_the_page_itself(lang):
    """Audit #7: nothing said where the learner was, how many steps the walk has or which of the post's sections a
    stage follows, and a phone folds the sidebar away. Each stage's page says its number of 11 and the post's
    heading (an aside, that the post has none), under its title in the main column; the stage the app opens on adds
    that Next walks the post."""
    for stage, number in zip(STAGES, SHOWN, strict=True):
        at = run(stage=stage, lang=lang)
        main = " ".join(m.value for m in at.main.markdown)
        head = main.split(TABLES[lang][f"{'kv' if stage == 'kv_cache' else stage}_text"][:20])[0]  # above the prose
        assert f" {number}" in head and "11" in head, (stage, head)
        if stage in SECTIONS:
            assert f"“{SECTIONS[stage]}”" in head, stage
            if lang == "zh":  # the heading is called a section (一节) right after it, once (audit 2026-12-06 #10)
                assert head.count("一节") == 1 and f"“{SECTIONS[stage]}”一节" in head, head
        else:
            assert TABLES[lang][f"aside_{stage}"] in head, stage
        next_words = TABLES[lang]["where_opening"].split("{line}")[1][:12]
        assert (next_words in head) == (stage == "input"), stage
        assert "11" not in " ".join(c.value for c in at.sidebar.markdown)


def test_every_stage_in_parts_draws_its_part_control_one_way():
    """Issue 43: "a stage in parts" had its own control on each stage (four widgets, three label rules). Every stage
    with parts draws its part with prose.part_control, the one widget keyed by its Parts' session key; no other
    module makes a widget with such a key, and each part has its name in both languages under "<key>_<part>" (the
    block numbers its own, by its order)."""
    keys = {s.parts.key: s for s in walk.WALK if s.parts}
    root = Path(mha.ui.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        if path.name == "prose.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Constant) \
                    and node.value.value in keys:
                found.append(f"{path.relative_to(root)}:{node.value.lineno} key={node.value.value!r}")
    assert not found, found
    for key, stage in keys.items():
        for table in TABLES.values():
            assert key in table and all(f"{key}_{p}" in table for p in stage.parts.values), (stage.id, key)
