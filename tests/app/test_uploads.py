"""Uploads are bounded a session and a process (mha/ui/uploads.py): Streamlit's upload endpoint keeps any file for
any live session; here past SESSION_MAX or PROCESS_MAX a file is refused with 413, and a checkpoint's files are let go
as soon as the page has read them."""

import pytest
from starlette.exceptions import HTTPException
from streamlit.proto.Common_pb2 import FileURLs as FileURLsProto
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import DeletedFile, UploadedFile, UploadedFileRec

from mha.ui import uploads
from mha.ui.heads import real
from mha.ui.shared import MB
from mha.ui.strings import TABLES

from .helpers import rerun, run


class Bounded(MemoryUploadedFileManager):
    """Streamlit's manager with the app's wrapper (on a class of its own: the test changes no process-wide class)."""


uploads.install(Bounded)


def _file(file_id: str, nbytes: int = MB) -> UploadedFileRec:
    return UploadedFileRec(file_id=file_id, name=f"{file_id}.json", type="application/json", data=b"x" * nbytes)


def test_a_session_holds_at_most_its_share_of_uploads_and_a_file_sent_again_counts_once():
    m = Bounded("/upload")
    for i in range(6):
        m.add_file("a", _file(f"f{i}"))
    m.add_file("a", _file("f0"))  # the same id again replaces it
    with pytest.raises(HTTPException) as refused:
        m.add_file("a", _file("f6"))
    assert refused.value.status_code == 413
    assert len(m.file_storage["a"]) == 6 and m._total_bytes == 6 * MB  # nothing held was dropped
    m.add_file("b", _file("f0"))  # another page still may
    m.remove_file("a", "f1")
    m.add_file("a", _file("f6"))  # and this one, once it let one go


def test_the_process_holds_at_most_every_pages_share_of_uploads():
    m = Bounded("/upload")
    for session in "abc":
        for i in range(5):
            m.add_file(session, _file(f"f{i}"))
    m.add_file("d", _file("f0"))  # 16 MB held: 5 + 5 + 5 + 1
    with pytest.raises(HTTPException):
        m.add_file("d", _file("f1"))
    assert m._total_bytes == uploads.PROCESS_MAX
    m.add_file("d", _file("f0"))  # the same file sent again counts once, in the process too (planted p23: refused)
    assert m._total_bytes == uploads.PROCESS_MAX
    m.remove_session_files("a")
    m.add_file("d", _file("f1"))


def test_a_checkpoints_files_are_let_go_once_the_page_has_read_them(offered, monkeypatch):
    let_go = []

    class Runtime:
        @staticmethod
        def exists():
            return True

        @staticmethod
        def instance():
            return type("R", (), {"uploaded_file_mgr": type("M", (), {
                "remove_file": staticmethod(lambda session, file_id: let_go.append((session, file_id)))})})

    monkeypatch.setattr(uploads, "Runtime", Runtime)
    at = run(stage="heads")
    files = [(p.name, p.read_bytes(), "application/octet-stream") for p in sorted((offered / "trained-gpt2").iterdir())]
    at.file_uploader(key="ckpt_files").set_value(files)
    rerun(at)
    assert at.session_state["ckpt"] == ":upload" and len(let_go) == 3  # read, shown, and its three files let go
    assert len({session for session, _ in let_go}) == 1


def test_a_checkpoint_added_in_two_goes_is_read_whole_and_files_let_go_are_asked_for_again(offered, monkeypatch):
    """Red team 2026-12-07 T7: config.json and tokenizer.json first, then model.safetensors: the first two had been
    let go once read, came back as DeletedFile, and the page showed an AttributeError. Files that make no checkpoint
    yet stay in the box; files already let go are asked for again, in words."""
    let_go = []
    monkeypatch.setattr(uploads, "release", lambda ids: let_go.extend(ids))
    at = run(stage="heads")
    files = {p.name: (p.name, p.read_bytes(), "application/octet-stream") for p in (offered / "trained-gpt2").iterdir()}
    at.file_uploader(key="ckpt_files").set_value([files["config.json"], files["tokenizer.json"]])
    rerun(at)
    assert "no model.safetensors" in " ".join(e.value for e in at.error) and not let_go  # kept: one is missing
    at.file_uploader(key="ckpt_files").set_value(list(files.values()))
    rerun(at)
    assert at.session_state["ckpt"] == ":upload" and len(let_go) == 3 and not at.exception
    name, data, kind = files["model.safetensors"]
    model = UploadedFile(UploadedFileRec("f2", name, kind, data), FileURLsProto())
    ss = {"lang": "zh", "ckpt_files": [DeletedFile("f1"), model]}
    monkeypatch.setattr(real.st, "session_state", ss)
    real._uploaded()  # a box holding a file let go: what a server's next run hands the page
    assert ss[real.UPLOAD_ERROR] == TABLES["zh"]["real_upload_again"]


def test_files_no_box_has_read_for_a_while_make_room_for_a_new_page(monkeypatch):
    """Red team 2026-12-06 R5: three sessions sending files to no box held the whole allowance, and every other
    page's upload got 413 for as long as they stayed open. Files held longer than UNREAD_S give way; newer ones
    do not."""
    clock = [1000.0]
    monkeypatch.setattr(uploads.time, "monotonic", lambda: clock[0])
    uploads._sent.clear()
    m = Bounded("/upload")
    for session in "abc":
        for i in range(5):
            m.add_file(session, _file(f"f{i}"))
    m.add_file("d", _file("f0"))  # 16 MB held
    clock[0] += uploads.UNREAD_S - 1
    with pytest.raises(HTTPException):  # none held long enough: refused, nothing dropped
        m.add_file("e", _file("f0"))
    assert m._total_bytes == uploads.PROCESS_MAX
    clock[0] += 2
    m.add_file("e", _file("f0"))  # the unread files give way
    assert "e" in m.file_storage and m._total_bytes == MB and not m.file_storage.get("a")
    assert list(uploads._sent) == [("e", "f0")]
