"""One module per stage, named by its id (walk.py); each has render(view), and download(cfg, x, w) when its files
hold more than the attention's trace (exports.Part, or None when the trace is the view), and files_view(cfg, x) when
its files hold other sizes and rows than the walk's (the KV cache's added tokens), and sizes_note(t, values) when it
needs sizes that are not distinct primes (the lab's GQA, a composite h), and source() when its view may show other
weights than the walk's (a checkpoint's heads: exports.Source, or None). RENDER maps the walk's stages, in its order,
to their render functions; DOWNLOAD, FILES_VIEW, SIZES_NOTE and SOURCE the stages that have them to theirs; SIZES_AWAY
holds the stages' notes on sizes their buttons set, said on any stage."""

from importlib import import_module

from ..walk import STAGES

MODULES = {stage: import_module(f"{__name__}.{stage}") for stage in STAGES}
RENDER = {stage: module.render for stage, module in MODULES.items()}
DOWNLOAD = {stage: module.download for stage, module in MODULES.items() if hasattr(module, "download")}
FILES_VIEW = {stage: module.files_view for stage, module in MODULES.items() if hasattr(module, "files_view")}
SIZES_NOTE = {stage: module.sizes_note for stage, module in MODULES.items() if hasattr(module, "sizes_note")}
SIZES_AWAY = [module.sizes_away for module in MODULES.values() if hasattr(module, "sizes_away")]
SOURCE = {stage: module.source for stage, module in MODULES.items() if hasattr(module, "source")}
