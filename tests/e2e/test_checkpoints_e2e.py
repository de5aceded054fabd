"""A real model's pages in Chromium, on a server offering the two small checkpoints of tests/checkpoints.py: the
tokens stage's BPE pieces stay within a phone's width, and every figure of the heads stage's checkpoint view can be
read on each screen (test_screens_e2e's checks: nothing over anything, nothing cut off or squeezed, and on the
projector every figure under the screen's height at the projector's type)."""

import pytest

from tests.checkpoints import build

from .conftest import _free_port, rerun_after, settle, start_server
from .test_presenter_e2e import first_screen
from .test_screens_e2e import SCREENS, open_on, page_problems, shoot_page

pytestmark = pytest.mark.e2e

CHIPS = """() => [...document.querySelectorAll('[data-testid="stMain"] .stHtml span[style*="dashed"]')]
  .map(c => c.getBoundingClientRect().right)"""


@pytest.fixture(scope="module")
def ckpt_url(tmp_path_factory):
    root = build(tmp_path_factory.mktemp("checkpoints"))
    port = _free_port()
    proc = start_server(port, env={"MHA_MODELS": str(root)})
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


# The sidebar's Weights control: each choice a whole box inside the sidebar, its words whole (three do not fit on one
# line: Streamlit drops the border between a choice and the selected one, so a wrapped one was left open).
WEIGHTS_BOXES = """() => {
  const bar = document.querySelector('[data-testid="stSidebarContent"]').getBoundingClientRect();
  const clear = c => c === 'transparent' || /,\\s*0\\)$|\\/\\s*0\\)$/.test(c);
  return [...document.querySelectorAll('.st-key-model button[role="radio"]')].flatMap(b => {
    const r = b.getBoundingClientRect(), s = getComputedStyle(b);
    const open = ['Top', 'Right', 'Bottom', 'Left'].filter(side => clear(s[`border${side}Color`]));
    const words = b.querySelector('p');
    return (r.left < bar.left || r.right > bar.right ? [`${b.innerText} outside the sidebar`] : [])
      .concat(words.scrollWidth > words.clientWidth ? [`${b.innerText} cut short`] : [])
      .concat(open.length ? [`${b.innerText} without its ${open.join(', ')} border`] : []);
  });
}"""
CHIP_PX = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stHtml"] span[style*="12px"]')]
  .map(c => parseFloat(getComputedStyle(c).fontSize))"""


@pytest.mark.parametrize("screen, lang", [("phone", "zh"), ("desk", "en"), ("present", "en")])
def test_the_bpe_pieces_stay_on_the_screen(page, ckpt_url, screen, lang):
    open_on(page, ckpt_url, screen, lang=lang, stage="tokens", ckpt="tiny-gpt2", text="多头因果自注意力 keeps the keys")
    rights = page.evaluate(CHIPS)
    assert len(rights) == 22  # the eight characters' byte pieces
    width = SCREENS[screen][0]["width"]
    assert max(rights) <= width - 16, (max(rights), width)
    shoot_page(page, SCREENS[screen][0], f"checkpoint-tokens-{screen}-{lang}")


LONG = "the cat sat on the mat and the dog sat on the log, " * 4  # 48 tokens of tiny-gpt2: its whole context


THUMBS = """() => [...document.querySelectorAll('.st-key-real_every .mha-chart svg image.heat-pixels')].map(im => {
  const area = im.ownerSVGElement.querySelector(`rect.mha-plot[data-sub="${im.closest('g.trace').dataset.sub}"]`)
    .dataset.area.split(',').map(Number);
  const box = [+im.getAttribute('x'), +im.getAttribute('y')];
  const c = document.createElement('canvas'), img = new Image();
  img.src = im.getAttribute('href');
  return new Promise(done => { img.onload = () => {
    c.width = img.width; c.height = img.height; const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
    const px = (i, j) => [...ctx.getImageData(j, i, 1, 1).data];
    done({area, box, n: img.width, rows: img.height, first: px(0, 0), masked: px(0, 1)}); }; });
})"""


def thumbnails(page) -> list[bool]:
    """Each thumbnail of the heads grid: an image over its plot's area, a pixel a token, row 1's only cell (S = 1) in
    the scale's darkest orange and the cell the mask took transparent, the plot's grey showing through."""
    found = [page.evaluate(f"() => ({THUMBS})()[{k}]") for k in range(page.evaluate(f"() => ({THUMBS})().length"))]
    return [abs(t["box"][0] - t["area"][0]) < 0.5 and abs(t["box"][1] - t["area"][1]) < 0.5 and t["n"] == t["rows"]
            and t["first"] == [127, 39, 4, 255] and t["masked"][3] == 0 for t in found]


@pytest.mark.parametrize("screen, lang, model", [("desk", "zh", "trained-gpt2"), ("present", "en", "tiny-gpt2"),
                                                 ("phone", "en", "trained-gpt2")])
def test_a_real_models_heads_can_be_read_on_every_screen(page, ckpt_url, screen, lang, model):
    text = "C F A H B D E G C F A H B D E G" if model == "trained-gpt2" else LONG  # each model's whole context
    params = dict(lang=lang, stage="heads", ckpt=model, text=text, ckpt_layer=2, ckpt_knock="2.1,2.2")
    open_on(page, ckpt_url, screen, **params)
    keys = page.evaluate("() => [...document.querySelectorAll('.mha-chart')].map(c => c.mha && c.mha.data.length)")
    assert len(keys) == 3, page.url  # every layer small, layer 2's patterns, the probe's scores
    assert thumbnails(page) == [True] * keys[0]  # each head's pattern, as an image of its cells
    assert page_problems(page, screen, SCREENS[screen][0]) == []
    if screen == "present":  # the layer's patterns whole on the projector's first screen, as every stage's figure
        assert first_screen(page, "heads", lang, animated=False) == []
    shoot_page(page, SCREENS[screen][0], f"checkpoint-heads-{model}-{screen}-{lang}")


UPLOAD_WORDS = """() => {
  const box = document.querySelector('.st-key-ckpt_files [data-testid="stFileUploaderDropzone"]');
  const label = box.querySelector('button [data-testid="stMarkdownContainer"]');
  return {button: getComputedStyle(label, '::after').content,
          english: [label.querySelector('p'), box.querySelector('[data-testid="stFileUploaderDropzoneInstructions"]')]
            .map(e => getComputedStyle(e).display)};
}"""


def test_an_uploaded_checkpoint_shows_its_heads_and_a_page_cannot_upload_past_its_share(page, ckpt_url, tmp_path):
    """Through the browser's file box and Streamlit's own upload endpoint: the trained model's three files open its
    heads; seven files of 0.9 MB go past a page's 6 MB (uploads.SESSION_MAX), and the seventh is refused. On a Chinese
    page the box's button and limit are in Chinese, not Streamlit's English."""
    open_on(page, ckpt_url, "desk", lang="en", stage="heads", text="C F A H B C F A H B")
    box = page.locator('.st-key-ckpt_files input[type="file"]')
    folder = build(tmp_path / "ckpts") / "trained-gpt2"
    rerun_after(page, lambda: box.set_input_files([str(p) for p in sorted(folder.iterdir())]))
    settle(page)
    assert "your upload" in page.locator('[data-testid="stMain"]').inner_text()
    assert page.locator(".mha-chart").count() == 3 and "ckpt=" not in page.url
    big = []
    for i in range(7):
        (tmp_path / f"part{i}.json").write_bytes(b"0" * 900_000)
        big.append(str(tmp_path / f"part{i}.json"))
    open_on(page, ckpt_url, "desk", lang="zh", stage="heads")
    assert page.evaluate(UPLOAD_WORDS) == {"button": '"上传"', "english": ["none", "none"]}  # Streamlit's words hidden
    assert "每个最多 1 MB" in page.locator(".st-key-ckpt_files").inner_text()  # its limit, in the box's label
    page.locator('.st-key-ckpt_files input[type="file"]').set_input_files(big)
    page.wait_for_function("""() => document.querySelector('.st-key-ckpt_files').innerText.includes('413')""",
                           timeout=30_000)
    said = page.locator(".st-key-ckpt_files").inner_text()
    assert said.count("413") == 1, said  # six taken, the seventh refused


def test_a_projectors_chips_are_read_from_the_back_of_the_room(page, ckpt_url):
    """The word and BPE chips on a projector at least 1.3 times their size on a desk, as the prose around them."""
    sizes = {}
    for screen in ("desk", "present"):
        open_on(page, ckpt_url, screen, lang="en", stage="tokens", ckpt="tiny-gpt2", text="多头 keeps the keys")
        sizes[screen] = min(page.evaluate(CHIP_PX))
    assert sizes["present"] >= 1.3 * sizes["desk"], sizes


@pytest.mark.parametrize("screen, lang", [("desk", "en"), ("present", "en"), ("phone", "zh")])
def test_the_walk_on_a_checkpoints_layer_can_be_read_on_every_screen(page, ckpt_url, screen, lang):
    """Q and K with the bias GPT-2 adds said under each product, and Y with b_O among the heads' terms: the two stages
    whose figures the checkpoint changes (S, H and the heads' patterns are drawn as on any weights)."""
    for stage in ("qk", "output"):
        open_on(page, ckpt_url, screen, lang=lang, stage=stage, model="checkpoint", ckpt="tiny-gpt2",
                text="the cat sat", ckpt_layer=2)
        assert page_problems(page, screen, SCREENS[screen][0]) == [], stage
        if screen == "desk":
            assert page.evaluate(WEIGHTS_BOXES) == []
        if screen == "present":
            assert first_screen(page, stage, lang, animated=False) == [], stage
        shoot_page(page, SCREENS[screen][0], f"checkpoint-walk-{stage}-{screen}-{lang}")
