"""A GPT-2 fetched from the Hugging Face Hub (issue 45), only where the server names a folder for it (MHA_HUB). The Hub
is a stand-in serving tests/checkpoints.py's checkpoints (this machine has no network), behind the same three calls
the real client makes; the real client's own calls are checked apart, with huggingface_hub's functions replaced."""

import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

import mha
from mha.ui import checkpoints, hub
from mha.ui.x_source import EXAMPLE

from .helpers import keyed_charts, page_text, rerun, run, shown, z


class RepositoryNotFoundError(Exception):
    """huggingface_hub's name for a model the Hub does not have (or will not show)."""


class Stand:
    """The Hub: repo -> a folder of its files; what was asked, in order."""

    def __init__(self, repos: dict[str, Path]):
        self.repos, self.asked, self.up, self.breaks, self.sizes = repos, [], True, None, {}

    def files(self, repo):
        self.asked.append(("files", repo))
        if repo not in self.repos:
            raise RepositoryNotFoundError(f"404 {repo}")
        return {p.name: self.sizes.get(p.name, p.stat().st_size) for p in self.repos[repo].iterdir()}

    def fetch(self, repo, name, into):
        self.asked.append(("fetch", name))
        if name == self.breaks:
            raise ConnectionError("the connection was reset")
        shutil.copy(self.repos[repo] / name, into / name)

    def reachable(self):
        self.asked.append(("reach",))
        return self.up


@pytest.fixture
def stand(checkpoint_root, tmp_path, monkeypatch):
    broken = tmp_path / "broken"
    shutil.copytree(checkpoint_root / "tiny-gpt2", broken)
    (broken / "tokenizer.json").write_text("{}")
    nosafe = tmp_path / "nosafe"
    shutil.copytree(checkpoint_root / "tiny-gpt2", nosafe)
    (nosafe / "model.safetensors").unlink()
    s = Stand({"someone/tiny-gpt2": checkpoint_root / "tiny-gpt2", "trained-gpt2": checkpoint_root / "trained-gpt2",
               "someone/broken": broken, "someone/nosafe": nosafe})
    monkeypatch.setattr(hub, "CLIENT", s)
    monkeypatch.setenv("MHA_HUB", str(tmp_path / "hub"))
    monkeypatch.delenv("MHA_MODELS", raising=False)
    hub._reach.clear()
    yield s
    hub._reach.clear()
    checkpoints.forget_offered()


def fetch(at, value: str):
    at.text_input(key="hub_id").input(value)
    at.button(key="hub_fetch").click()
    return rerun(at)


def said(at) -> str:
    """The page's words as read: no bold marks, and no word joiner (what keeps "http:" from turning into a link)."""
    return shown(page_text(at)).replace("\u2060", "").replace("**", "")


def test_a_model_is_fetched_config_first_then_offered_to_every_page_and_chosen(stand, checkpoint_root, tmp_path):
    at = fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert at.session_state["ckpt"] == "someone--tiny-gpt2"
    assert "Fetched someone--tiny-gpt2 from the Hub: its heads are below" in said(at)
    assert [a for a in stand.asked if a[0] == "fetch"] == [("fetch", "config.json"), ("fetch", "tokenizer.json"),
                                                             ("fetch", "model.safetensors")]
    kept = tmp_path / "hub" / "someone--tiny-gpt2"
    assert sorted(p.name for p in kept.iterdir()) == ["config.json", "model.safetensors", "tokenizer.json"]
    assert [p.name for p in (tmp_path / "hub").iterdir()] == ["someone--tiny-gpt2"]  # nothing half-fetched beside it
    # its heads, as the source checkpoint's: layer 1's S on the example's tokens (hidden cells are drawn empty)
    m = mha.load_gpt2(checkpoint_root / "tiny-gpt2")
    ids = m.tokenizer.encode(EXAMPLE["en"])
    shown_s = [z(t) for t in dict(keyed_charts(at))["real_s"]["data"] if "z" in t]
    probs = mha.model_forward(np.array(ids), m.weights).layers[0].attn.probs
    assert len(shown_s) == 4 and all(np.allclose(np.nan_to_num(a), b, atol=1e-9) for a, b in zip(shown_s, probs))
    # a link names it on this server as any checkpoint it offers; a second fetch of it fetches nothing
    other = run(stage="heads", ckpt="someone--tiny-gpt2", lang="zh")
    assert other.session_state["ckpt"] == "someone--tiny-gpt2" and "real_s" in dict(keyed_charts(other))
    before = len(stand.asked)
    fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert stand.asked[before:] == []


def test_a_server_without_mha_hub_shows_no_box_and_fetches_nothing(stand, monkeypatch):
    monkeypatch.delenv("MHA_HUB")
    at = run(stage="heads")
    assert not [w for w in at.text_input if w.key == "hub_id"]
    with pytest.raises(hub.HubError, match="off"):
        hub.fetch("someone/tiny-gpt2")
    assert stand.asked == []


def test_offline_the_page_says_so_at_once_and_asks_nothing_more(stand):
    stand.up = False
    at = fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert "This server cannot reach the Hugging Face Hub (huggingface.co)" in said(at)
    assert stand.asked == [("reach",)]
    at = fetch(run(stage="heads", lang="zh"), "trained-gpt2")
    assert "这个服务器连不上 Hugging Face Hub（huggingface.co）" in said(at)
    assert stand.asked == [("reach",)]  # the answer is kept a minute: not asked again


@pytest.mark.parametrize("value, words", [
    ("../../etc", "“../../etc” is not a name on the Hub that this server can fetch: owner/model, in letters, digits "
                  "and . - _, at most 40"),
    ("a/b/c", "“a/b/c” is not a name on the Hub"),
    ("*[x](http://e.vil)*", "“*[x](http://e.vil)*” is not a name on the Hub"),  # drawn as typed: no link, no emphasis
    ("o" * 30 + "/" + "m" * 30, "at most 40 characters once its “/” is written “--”"),
])
def test_an_id_the_server_cannot_fetch_is_refused_before_anything_is_asked(stand, value, words):
    at = fetch(run(stage="heads"), value)
    assert words in said(at)
    assert not [e for e in at.error if "[x](http" in e.value]  # Markdown's link marks escaped
    assert stand.asked == []


def test_a_huge_value_sent_past_the_box_is_cut_before_it_is_read(stand):
    started = time.perf_counter()
    with pytest.raises(hub.HubError) as e:
        hub.fetch("a" * 10_000_000)
    assert time.perf_counter() - started < 0.5 and e.value.fields["given"] == "a" * hub.ID_MOST
    assert stand.asked == []


def test_what_the_hub_will_not_give_is_said_and_nothing_is_kept(stand, tmp_path, monkeypatch):
    at = fetch(run(stage="heads"), "someone/missing")
    assert "The Hub has no public model someone/missing" in said(at)
    at = fetch(run(stage="heads"), "someone/nosafe")
    assert "it has no model.safetensors" in said(at)
    at = fetch(run(stage="heads", lang="zh"), "someone/broken")  # the loader's own reason, in the page's language
    assert "无法读取它的分词器" in said(at)
    stand.breaks = "model.safetensors"
    at = fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert "The Hub did not give someone/tiny-gpt2's files, so nothing was kept: model.safetensors: the connection " \
           "was reset" in said(at)
    stand.breaks = None
    stand.sizes = {"model.safetensors": 10**9}
    at = fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert re.search(r"model\.safetensors is 954 MB, more than the [\d.]+ MB its config\.json's numbers", said(at))
    assert not (tmp_path / "hub").exists() or list((tmp_path / "hub").iterdir()) == []
    assert "ckpt" not in at.session_state or not at.session_state["ckpt"]


def test_a_folder_the_server_cannot_write_is_said_not_crashed_on(stand, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("MHA_HUB", str(tmp_path / "file" / "hub"))
    at = fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert re.search(r"The Hub did not give someone/tiny-gpt2's files, so nothing was kept: .*file/hub: "
                     r"Not a directory", said(at))


def test_a_model_past_the_budget_is_refused_from_its_config_alone(stand, monkeypatch):
    monkeypatch.setenv("MHA_MODEL_MB", "0.01")
    at = fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert re.search(r"someone/tiny-gpt2 needs [\d.]+ MB in this process", said(at))
    assert [a for a in stand.asked if a[0] == "fetch"] == [("fetch", "config.json")]  # never the weights


def test_one_fetch_at_a_time(stand):
    with hub._one:
        at = fetch(run(stage="heads"), "someone/tiny-gpt2")
    assert "Another page is fetching a model from the Hub" in said(at)
    assert not [a for a in stand.asked if a[0] == "fetch"]


def test_the_real_client_asks_huggingface_hub_for_the_files_it_names(monkeypatch, tmp_path):
    import huggingface_hub

    class Sibling:
        def __init__(self, name, size):
            self.rfilename, self.size = name, size

    calls = []

    class Api:
        def model_info(self, repo, files_metadata=False):
            calls.append(("info", repo, files_metadata))
            return type("Info", (), {"siblings": [Sibling("config.json", 700), Sibling("model.safetensors", None)]})

    monkeypatch.setattr(huggingface_hub, "HfApi", Api)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda *a, **k: calls.append(("get", a, k)))
    client = hub.Client()
    assert client.files("someone/model") == {"config.json": 700, "model.safetensors": 0}
    client.fetch("someone/model", "config.json", tmp_path)
    assert calls == [("info", "someone/model", True),
                     ("get", ("someone/model", "config.json"), {"local_dir": tmp_path})]
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", "http://127.0.0.1:9")  # nothing listens on 9
    started = time.perf_counter()
    assert client.reachable() is False and time.perf_counter() - started < hub.REACH_S
