"""GPT-2 checkpoints fetched from the Hugging Face Hub (issue 45), where the server's operator allows it: `MHA_HUB`
names a folder, and a page may then fetch a model by its Hub name into that folder, where it stays and is offered as
every `MHA_MODELS` checkpoint is (checkpoints.offered). Unset (the hosted demo), nothing is ever downloaded.

A fetch reads the model's file list first (one request), then its config.json alone, and goes on only if the numbers
it declares fit the checkpoints' budget (checkpoints.budget) and model.safetensors is no larger than they are in
float64 with the largest header the loader reads; then the tokenizer and the weights, into a folder beside the final
one, read whole by mha.load_gpt2 before it takes its name. One fetch at a time in a process; a server that cannot
reach the Hub says so at once, without waiting on the client's retries. No Streamlit here: heads/hub_box.py is the
page's side."""

import os
import re
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import mha

from . import checkpoints

ID_MOST = 96  # characters of a Hub id read at all: a longer value is cut before it is looked at
EXAMPLES = ("openai-community/gpt2", "distilbert/distilgpt2")
ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?")
TOKENIZERS = (("tokenizer.json",), ("vocab.json", "merges.txt"))
REACH_S = 3.0  # how long the server tries to open a connection to the Hub before saying it cannot
REACH_KEPT_S = 60.0  # how long an answer about reaching the Hub is kept


def folder() -> Path | None:
    """Where fetched checkpoints go (MHA_HUB), or None: this server fetches nothing."""
    value = os.environ.get(checkpoints.HUB, "").strip()
    return Path(value).expanduser() if value else None


class HubError(mha.InputError):
    """Why a fetch did not happen, as a key of the page's words (strings/hub.py) and the values they name."""

    def __init__(self, key: str, **fields):
        super().__init__(f"{key}: {fields}")
        self.key, self.fields = key, fields


def name_of(repo: str) -> str:
    """The checkpoint's name here (its folder's, and `ckpt=` in a link): owner--model."""
    return repo.replace("/", "--")


def read_id(raw: str) -> str:
    """A Hub id from what the page was given: cut to ID_MOST before anything else, stripped; HubError("bad_id") unless
    it is owner/model or model in the Hub's letters and its name here could be carried by a link."""
    given = raw[:ID_MOST].strip()
    if not ID.fullmatch(given) or ".." in given or not checkpoints.NAME.fullmatch(name_of(given)):
        raise HubError("bad_id", given=given, most=checkpoints.NAME_MOST)
    return given


class Client:
    """The Hub as this module uses it: a model's files with their sizes, one file fetched into a folder, and whether
    the Hub's host answers. Tests put a client of their own in `CLIENT`."""

    def files(self, repo: str) -> dict[str, int]:
        from huggingface_hub import HfApi

        info = HfApi().model_info(repo, files_metadata=True)
        return {s.rfilename: int(s.size or 0) for s in info.siblings or []}

    def fetch(self, repo: str, name: str, into: Path) -> None:
        from huggingface_hub import hf_hub_download

        hf_hub_download(repo, name, local_dir=into)

    def reachable(self) -> bool:
        from huggingface_hub import constants

        url = urlsplit(constants.ENDPOINT)
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            socket.create_connection((url.hostname, port), timeout=REACH_S).close()
            return True
        except OSError:
            return False


CLIENT = Client()
_reach: dict = {}  # "at", "yes": the last answer about reaching the Hub, kept REACH_KEPT_S
_one = threading.Lock()  # one fetch at a time in this process


def reachable() -> bool:
    """Whether the Hub's host answers (asked at most once a minute)."""
    now = time.monotonic()
    if not _reach or now - _reach["at"] > REACH_KEPT_S:
        _reach.update(at=now, yes=CLIENT.reachable())
    return _reach["yes"]


def fetch(raw: str) -> str:
    """Fetch the model `raw` names into MHA_HUB and return its name here (one already there is not fetched again).
    HubError or CheckpointError (checkpoints.TooLarge among them) saying why not; nothing half-fetched stays."""
    repo = read_id(raw)
    name, home = name_of(repo), folder()
    if home is None:  # (the page offers no box then)
        raise HubError("off")
    if name in checkpoints.offered():
        return name
    if not reachable():
        raise HubError("offline", host=urlsplit(_endpoint()).hostname or "")
    if not _one.acquire(blocking=False):
        raise HubError("busy")
    try:
        return _fetch(repo, name, home)
    finally:
        _one.release()


def _endpoint() -> str:
    from huggingface_hub import constants

    return constants.ENDPOINT


def _fetch(repo: str, name: str, home: Path) -> str:
    try:
        sizes = CLIENT.files(repo)
    except Exception as e:  # noqa: BLE001 - the client's many kinds: missing, gated, private, a server's error
        raise HubError("not_found" if "NotFound" in type(e).__name__ or "Gated" in type(e).__name__ else "failed",
                       repo=repo, error=str(e)[:200]) from None
    tokenizer = next((files for files in TOKENIZERS if all(f in sizes for f in files)), None)
    for needed, key in (("config.json", "no_config"), ("model.safetensors", "no_safetensors")):
        if needed not in sizes:
            raise mha.CheckpointError(f"{repo} has no {needed}.", key)
    if tokenizer is None:
        raise mha.CheckpointError(f"{repo} has no tokenizer.", "no_tokenizer")
    try:
        home.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".fetching-", dir=home))
    except OSError as e:  # the operator's folder cannot be written: said, as a fetch that failed
        raise HubError("failed", repo=repo, error=f"{home}: {e.strerror or e}") from None
    try:
        _get(repo, "config.json", work)
        nbytes, allowed = 8 * mha.checkpoint_numbers(work)[1], checkpoints.budget()
        if nbytes > allowed:
            raise checkpoints.TooLarge(repo, nbytes, allowed, checkpoints.fitting(allowed))
        if sizes["model.safetensors"] > nbytes + 8 + mha.gpt2.HEADER_MAX_BYTES:  # float64 at most, and its header
            raise HubError("weights_big", repo=repo, size=checkpoints.megabytes(sizes["model.safetensors"]),
                           need=checkpoints.megabytes(nbytes))
        for file in (*tokenizer, "model.safetensors"):
            _get(repo, file, work)
        shutil.rmtree(work / ".cache", ignore_errors=True)  # the client's notes on what it fetched
        mha.load_gpt2(work)  # read whole: only a checkpoint the core runs takes its name
        if not (home / name).exists():  # (another server on this folder may have fetched it meanwhile)
            try:
                work.rename(home / name)
            except OSError as e:
                raise HubError("failed", repo=repo, error=f"{home / name}: {e.strerror or e}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    checkpoints.forget_offered()
    return name


def _get(repo: str, file: str, work: Path) -> None:
    try:
        CLIENT.fetch(repo, file, work)
    except Exception as e:  # noqa: BLE001 - the connection dropped, the disk filled: said, and nothing kept
        raise HubError("failed", repo=repo, error=f"{file}: {str(e)[:200]}") from None
