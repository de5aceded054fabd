"""The SVG draws a figure where Plotly.js would: the app's figures (from AppTest) are drawn side by side by Plotly.js
(the copy the plotly package ships) and by mha/ui/matrix_chart.js in one page, and every text both draw (titles, tick
labels, cell numbers, colour bar ticks, marks) is found in each and compared by the centre of its box."""

import functools
import http.server
import json
import shutil
import statistics
import threading
from pathlib import Path

import plotly
import pytest

from tests.app.helpers import keyed_charts, run

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
VIEWS = [dict(stage="matmul"), dict(stage="tokens", text="queries compare themselves against earlier keys"),
         dict(stage="qk"), dict(stage="scores"), dict(stage="values", lang="zh"), dict(stage="heads"),
         dict(stage="output"), dict(stage="dependency"), dict(stage="kv_cache"), dict(stage="block"),
         dict(stage="block", part="ffn"), dict(stage="next_token"),
         dict(stage="scores", n_tokens=12, d_model=32, d_k=16, n_heads=4),
         dict(stage="kv_cache", text=" ".join(["hello", "world"] * 10))]  # 20 tokens: the panels say which rows
PAGE = """<!doctype html><html><head><meta charset="utf-8"><script src="plotly.min.js"></script></head>
<body style="margin:0"><script type="module">
import { render } from "./matrix_chart.js";
const specs = await (await fetch("specs.json")).json();
for (const [i, spec] of specs.entries()) {
  const pair = document.createElement("div"), a = document.createElement("div"), b = document.createElement("div");
  pair.style.display = "flex"; pair.style.gap = "20px"; a.id = "p" + i; b.id = "m" + i;
  pair.append(a, b); document.body.append(pair);
  await Plotly.newPlot(a, spec.data, spec.layout, {displayModeBar: false});
  render(b, spec, {});
}
window.done = true;
</script></body></html>"""
# Every text of a chart with its box's centre; Plotly's play buttons and slider labels are left out (the SVG's are
# HTML controls, checked elsewhere), and the SVG's minus sign is read as Plotly's d3-format writes it.
TEXTS = """(i) => {
  const read = (root, skip) => { const o = root.getBoundingClientRect();
    return [...root.querySelectorAll('svg text')].filter(t => !(skip && t.closest(skip)))
      .map(t => [t.textContent.replace(/\\u200b/g, '').replace(/\\u2212/g, '-').trim(), t.getBoundingClientRect(), o])
      .filter(([s, b]) => s && b.width > 0)
      .map(([s, b, o]) => [s, (b.left + b.right) / 2 - o.left, (b.top + b.bottom) / 2 - o.top]); };
  return [read(document.getElementById('p' + i), '.slider-container, .updatemenu-container'),
          read(document.getElementById('m' + i).querySelector('.mha-chart'), null)];
}"""


@pytest.fixture(scope="module")
def pair_page(browser, tmp_path_factory):
    """The page with every figure of VIEWS drawn twice, served from a temporary folder."""
    specs = [spec for params in VIEWS for _, spec in keyed_charts(run(**params))]
    folder = tmp_path_factory.mktemp("pairs")
    shutil.copy(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", folder)
    shutil.copy(ROOT / "mha" / "ui" / "matrix_chart.js", folder)
    (folder / "specs.json").write_text(json.dumps(specs))
    (folder / "index.html").write_text(PAGE)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = browser.new_page(viewport={"width": 1800, "height": 1000})
    page.goto(f"http://127.0.0.1:{server.server_address[1]}/index.html")
    page.wait_for_function("window.done === true", timeout=60_000)
    yield page, specs
    page.close()
    server.shutdown()


def test_every_text_is_where_plotly_puts_it(pair_page):
    """Each text Plotly draws is drawn by the SVG too, each text the SVG draws by Plotly (one to one, the nearest
    first), and the two lie within 3 px of each other."""
    page, specs = pair_page
    offsets, missing, extra = [], [], []
    for i in range(len(specs)):
        theirs, mine = page.evaluate(TEXTS, i)
        pairs = sorted((max(abs(a[1] - b[1]), abs(a[2] - b[2])), p, q) for p, a in enumerate(theirs)
                       for q, b in enumerate(mine) if a[0] == b[0])
        used_p, used_q = set(), set()
        for d, p, q in pairs:
            if p not in used_p and q not in used_q:
                used_p.add(p)
                used_q.add(q)
                offsets.append((d, i, theirs[p][0]))
        missing += [(i, t[0]) for p, t in enumerate(theirs) if p not in used_p]
        extra += [(i, t[0]) for q, t in enumerate(mine) if q not in used_q]
    assert len(specs) >= 20 and len(offsets) >= 1500
    assert not missing, missing[:10]
    assert not extra, extra[:10]
    worst = sorted(offsets, reverse=True)[:5]
    assert worst[0][0] <= 3.0, worst  # px, the larger of the two directions
    assert statistics.median(d for d, *_ in offsets) <= 0.6
